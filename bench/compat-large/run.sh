#!/usr/bin/env bash
# bench/compat-large/run.sh: CPU time of `conform compat` against jsoncompat
# 0.5.0 on the large pairs of issue 23 (control v1 → v2 and two SchemaStore
# pairs), per pair and direction, printed as a table of ratios.
#
#   bench/compat-large/run.sh [ROUNDS]     # default 5 rounds
#   BEFORE=/path/to/older/conform bench/compat-large/run.sh   # also an older build, in the same rounds
#
# Each round runs one `conform compat --pairs` process and then one
# peers.py jsoncompat process over the same documents (every pair and
# direction 3 times each, so every tool has 3 × ROUNDS measurements); the
# table takes each tool's minimum. jsoncompat comes from
# bench/compat-corpus/install-peers.sh (Python >= 3.12, a venv in
# ${CONFORM_CACHE:-~/.cache/conform}/compat-peers). Exit status: 0 when the
# table was printed, 2 when a measurement failed or a verdict changed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${CONFORM_CACHE:-$HOME/.cache/conform}/compat-peers
ROUNDS=${1:-5}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/conform-compat-large.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"
go build -o "$WORK/compat-large" ./bench/compat-large
go build -o "$WORK/conform" ./cmd/conform
bash bench/compat-corpus/install-peers.sh >&2
"$WORK/compat-large" --root "$ROOT" --export "$WORK"
for r in $(seq "$ROUNDS"); do
  echo "compat-large: round $r of $ROUNDS" >&2
  rc=0
  "$WORK/conform" compat --pairs "$WORK/pairs.jsonl" >"$WORK/conform.$r.jsonl" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "compat-large: conform compat --pairs exited $rc" >&2
    exit 2
  fi
  if [ -n "${BEFORE:-}" ]; then
    rc=0
    "$BEFORE" compat --pairs "$WORK/pairs.jsonl" >"$WORK/before.$r.jsonl" || rc=$?
    if [ "$rc" -gt 1 ]; then
      echo "compat-large: $BEFORE compat --pairs exited $rc" >&2
      exit 2
    fi
  fi
  "$CACHE/venv-jsoncompat/bin/python" bench/compat-corpus/peers.py jsoncompat "$WORK/cases.jsonl" "$WORK/jsoncompat.$r.jsonl"
done
"$WORK/compat-large" --report "$WORK"
