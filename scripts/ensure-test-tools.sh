#!/usr/bin/env bash
# Debian's Chromium, for the browser tests (GraphiQL, the SDK's OAuth flow), and openssl, which
# makes that flow's throwaway TLS certificate: installed when missing and we can; otherwise says
# what to do (the suite still runs). Then what the embedded engine's tests need (pymongo).
# Run by `npm test`.
set -euo pipefail
source "$(dirname "$0")/debian.sh"
[ -x /usr/bin/chromium ] || install_or_tell chromium 'the browser tests' || true
command -v openssl >/dev/null || install_or_tell openssl "the SDK's OAuth flow test" || true
exec bash packages/embedded-mongo/scripts/ensure-test-tools.sh
