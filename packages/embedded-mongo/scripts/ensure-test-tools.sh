#!/usr/bin/env bash
# Debian's python3-pymongo: a MongoDB client nobody here wrote, run against the engine by
# test/clients. Installs it when missing and we can (root with apt-get, as on CI); otherwise says
# what to do. Run by `npm test` (here and at the repository's root).
set -euo pipefail
/usr/bin/python3 -c 'import pymongo' 2>/dev/null && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's python3-pymongo for the tests..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pymongo >/dev/null
else
  echo "The client tests need Debian's python3-pymongo: sudo apt-get install python3-pymongo" >&2
fi
