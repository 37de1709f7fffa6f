#!/usr/bin/env bash
# Puts the tests of MongoDB's specifications that the spec runner (spec/cli.ts) uses under
# .spec-tests/source/ (git-ignored; never commit them): by default from a shallow, sparse clone of
# github.com/mongodb/specifications in .spec-tests/specifications; with --from, extracted from a
# local clone or mirror (any git directory git -C accepts), for machines without network.
#   scripts/fetch-spec-tests.sh [--from <git dir>]
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(source/crud/tests/unified source/index-management/tests source/collection-management/tests
  source/unified-test-format)
mkdir -p .spec-tests
if [[ $# -eq 0 ]]; then
  rm -rf .spec-tests/specifications
  git clone --quiet --depth 1 --filter=blob:none --sparse https://github.com/mongodb/specifications \
    .spec-tests/specifications
  git -C .spec-tests/specifications sparse-checkout set "${paths[@]}"
  rm -rf .spec-tests/source
  ln -s specifications/source .spec-tests/source
elif [[ $# -eq 2 && $1 == --from ]]; then
  git -C "$2" rev-parse --verify --quiet HEAD >/dev/null 2>&1 || { echo "$2: not a git directory" >&2; exit 2; }
  rm -rf .spec-tests/source
  git -C "$2" archive HEAD "${paths[@]}" | tar -x -C .spec-tests
else
  echo "usage: $0 [--from <git dir>]" >&2
  exit 2
fi
echo "spec tests in $(pwd)/.spec-tests/source ($(git -C "${2:-.spec-tests/specifications}" rev-parse --short HEAD))"
