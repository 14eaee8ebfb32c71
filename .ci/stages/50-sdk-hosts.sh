#!/usr/bin/env bash
set -euo pipefail
echo "== real hosts: the Agent SDKs (TypeScript and Python), host role"
impl/agent-sdk-ts/install.sh
impl/agent-sdk-python/install.sh
"$conform" run --role host --profile impl/agent-sdk-ts -j 2
"$conform" run --role host --profile impl/agent-sdk-python -j 2
