#!/usr/bin/env bash
set -euo pipefail
echo "== install and certify the real Claude Code CLI 2.1.332 (v1; under v2 it must get VERSION_UNSUPPORTED)"
impl/claude-code/install.sh
mkdir -p "$CI_TMP/reports" # JSON report for the matrix stage (scripts/matrix.sh names)
"$conform" run --profile impl/claude-code -j 2 --json-out "$CI_TMP/reports/claude-code.agent-v1.json"
if "$conform" run --version 2 --profile impl/claude-code --format json --out "$CI_TMP/cli-v2.json"; then
  echo "the v1-only CLI must not be certified against v2" >&2
  exit 1
fi
grep -q '"VERSION_UNSUPPORTED"' "$CI_TMP/cli-v2.json"
