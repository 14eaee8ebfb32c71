#!/usr/bin/env bash
set -euo pipefail
echo "== real hosts: the Agent SDKs (TypeScript and Python), host role"
impl/agent-sdk-ts/install.sh
impl/agent-sdk-python/install.sh
mkdir -p "$CI_TMP/reports" # JSON reports for the matrix stage (scripts/matrix.sh names)
"$conform" run --role host --profile impl/agent-sdk-ts -j 2 --json-out "$CI_TMP/reports/agent-sdk-ts.host-v1.json"
"$conform" run --role host --profile impl/agent-sdk-python -j 2 --json-out "$CI_TMP/reports/agent-sdk-python.host-v1.json"
