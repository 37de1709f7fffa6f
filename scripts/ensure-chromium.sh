#!/usr/bin/env bash
# The GraphiQL end-to-end test drives Debian's Chromium. Install it when it is missing and we can
# (root with apt-get, as on CI and the dev machines); otherwise say what to do. Run by `npm test`.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium for the GraphiQL browser test..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
else
  echo "The GraphiQL browser test needs /usr/bin/chromium: sudo apt-get install chromium" >&2
fi
