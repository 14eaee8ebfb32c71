#!/usr/bin/env bash
set -euo pipefail
# Host vectors against the real Claude Code CLI 2.1.332 (installed by stage
# 30; the SDKs by stage 50), offline, with the Messages-API stand-in on
# 127.0.0.1 scripted per vector. Measured here: about 7 minutes at -j 2.
echo "== double fidelity: the CLI's requests for every host vector it can produce, against the vectors"
"$conform" fidelity -j 2
echo "== hosts certified against the real CLI (only the vectors it can produce run)"
"$conform" run --role host --agent claude-code -j 2
"$conform" run --role host --agent claude-code --profile impl/agent-sdk-ts -j 2
"$conform" run --role host --agent claude-code --profile impl/agent-sdk-python -j 2
