#!/usr/bin/env bash
# Debian's Chromium, for the GraphiQL browser test: installed when missing and we can (root with
# apt-get, as on CI and the dev machines); otherwise says what to do. Then what the embedded
# engine's tests need (pymongo). Run by `npm test`.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "Installing Debian's chromium for the tests..." >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    echo "The GraphiQL test needs Debian's chromium: sudo apt-get install chromium" >&2
  fi
fi
exec bash packages/embedded-mongo/scripts/ensure-test-tools.sh
