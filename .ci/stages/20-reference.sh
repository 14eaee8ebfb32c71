#!/usr/bin/env bash
set -euo pipefail
echo "== certify the embedded reference (README main job): agent and host, v1 and v2"
mkdir -p "$CI_TMP/reports" # JSON reports for the matrix stage (scripts/matrix.sh names)
"$conform" run --exact --json-out "$CI_TMP/reports/reference.agent-v1.json"
"$conform" run --exact --version 2 --json-out "$CI_TMP/reports/reference.agent-v2.json"
"$conform" run --exact --role host --json-out "$CI_TMP/reports/reference.host-v1.json"
"$conform" run --exact --role host --version 2 --json-out "$CI_TMP/reports/reference.host-v2.json"
