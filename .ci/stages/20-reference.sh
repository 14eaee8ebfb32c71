#!/usr/bin/env bash
set -euo pipefail
echo "== certify the embedded reference (README main job): agent and host, v1 and v2"
"$conform" run
"$conform" run --version 2
"$conform" run --role host
"$conform" run --role host --version 2
