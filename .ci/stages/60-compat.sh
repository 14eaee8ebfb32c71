#!/usr/bin/env bash
set -euo pipefail
echo "== compat: v1 -> v2 must be classified BREAKING for readers"
if "$conform" compat schemas/control.v1.json schemas/control.v2.json --direction reader > "$CI_TMP/compat.txt"; then
  echo "v1 -> v2 must break readers" >&2
  exit 1
fi
tail -n 3 "$CI_TMP/compat.txt"
