#!/usr/bin/env bash
set -euo pipefail
echo "== certify the embedded reference (README main job): agent and host, v1 and v2"
"$conform" run --exact
"$conform" run --exact --version 2
"$conform" run --exact --role host
"$conform" run --exact --role host --version 2
