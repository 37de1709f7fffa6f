#!/usr/bin/env bash
# Debian's wrk: the load generator `npm run bench` drives every server with, in a process of its
# own (a load generator inside the bench's own node process could not pass ~335 requests/s on large
# answers). Installs it when missing and we can (root with apt-get); otherwise says what to do.
# Run by `npm run bench`.
set -euo pipefail
command -v wrk >/dev/null && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's wrk for the bench..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null
else
  echo "The bench needs Debian's wrk: sudo apt-get install wrk" >&2
  exit 1
fi
