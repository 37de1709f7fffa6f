#!/usr/bin/env bash
# Debian's wrk: the load generator `npm run bench` drives every server with, in a process of its
# own (a load generator inside the bench's own node process could not pass ~335 requests/s on large
# answers). Installs it when missing and we can; otherwise says what to do. Run by `npm run bench`.
set -euo pipefail
source "$(dirname "$0")/debian.sh"
command -v wrk >/dev/null || install_or_tell wrk 'the bench'
