#!/usr/bin/env bash
# The composite GitHub Action (issue 14 item 3): its steps run locally from
# action.yml (source build, a failing IUT, expected failures, a profile, two
# shards merged, a bad input, a release download with checksum check).
set -euo pipefail
py="$(scripts/ci-tools.sh)"
"$py" scripts/test-action.py
