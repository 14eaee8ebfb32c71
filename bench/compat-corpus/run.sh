#!/usr/bin/env bash
# bench/compat-corpus/run.sh: agreement of `conform compat` (and of its peers
# jsoncompat and jsonsubschema) with public labelled corpora of JSON Schema
# changes. It fetches nothing: point it at checkouts you made yourself.
#
#   bench/compat-corpus/run.sh --apicurio DIR_OR_FILE --karapace DIR [--confluent DIR] [--list] [--no-peers] [--defaults] [--refute]
#
#   --apicurio   a checkout of Apicurio Registry, or its
#                schema-util/json/src/test/resources/io/apicurio/registry/rules/compatibility/jsonschema/compatibility-test-data.json
#   --karapace   a checkout of Karapace (tests/schemas/json_schemas.py and
#                tests/unit/compatibility/jsonschema/test_jsonschema_compatibility.py are read as data)
#   --confluent  a checkout of Confluent Schema Registry (json-schema-provider/src/test/resources/diff-*.json are
#                read as data; reader-direction labels only)
#   --list       print every disagreement with its witness or proof (and the peers' verdicts)
#   --no-peers   skip the peers (they need bench/compat-corpus/install-peers.sh and Python >= 3.12)
#   --defaults   run conform with its default options instead of --strict-open
#   --refute     try to refute every proof conform states (internal/compat/refute): the wrong-proof count
#
# conform compares every case in one `conform compat --pairs` process (batch mode); the table of CPU
# time per pair, conform against each peer on the pairs both answered, follows the agreement table.
#
# Exit status: 0 when the table was printed, 2 for bad arguments or corpora.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${CONFORM_CACHE:-$HOME/.cache/conform}/compat-peers
args=() peers=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-peers) peers=0 ;;
    --apicurio|--karapace|--confluent) args+=("$1" "$2"); shift ;;
    --list|--defaults|--refute) args+=("$1") ;;
    *) echo "run.sh: unknown argument $1 (see the header of this script)" >&2; exit 2 ;;
  esac
  shift
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/conform-compat-corpus.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"
go build -o "$WORK/compat-corpus" ./bench/compat-corpus
go build -o "$WORK/conform" ./cmd/conform
"$WORK/compat-corpus" "${args[@]}" --export "$WORK/cases.jsonl" >/dev/null
if [ "$peers" = 1 ]; then
  bash bench/compat-corpus/install-peers.sh >&2
  for p in jsoncompat jsonsubschema; do
    echo "run.sh: running $p" >&2
    "$CACHE/venv-$p/bin/python" bench/compat-corpus/peers.py "$p" "$WORK/cases.jsonl" "$WORK/$p.jsonl"
    args+=(--peer "$p=$WORK/$p.jsonl")
  done
fi
"$WORK/compat-corpus" "${args[@]}" --conform "$WORK/conform"
