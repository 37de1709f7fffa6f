#!/usr/bin/env bash
# Debian packages some tests drive: Chromium (the GraphiQL browser test) and python3-pymongo (a
# MongoDB client nobody here wrote, run against the engine). Installs what is missing when we can
# (root with apt-get, as on CI and the dev machines); otherwise says what to do. Run by `npm test`.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
/usr/bin/python3 -c 'import pymongo' 2>/dev/null || missing+=(python3-pymongo)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's ${missing[*]} for the tests..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "Some tests need Debian's ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
fi
