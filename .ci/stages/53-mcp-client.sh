#!/usr/bin/env bash
# The MCP suite's client role (suites/mcp, docs/mcp-client.md): the IUT is an
# MCP client and conform plays a scripted server. The reference client and
# the two official SDK clients, each installed pinned by its own script, are
# certified against the client vectors, each run ending with the verdict
# written below (a change either way fails the stage); then a parity gate
# across the three, and a check that the committed goldens are the
# reference's. Measured here (2 cores, installs cached): 78 s, most of it the
# Python client (about a second of imports per vector) and the parity gate.
set -euo pipefail
echo "== MCP client role: install the reference client and the SDK clients (TypeScript SDK 1.32.2, Python mcp 2.3.0)"
impl/mcp-client-reference/install.sh
impl/mcp-client-typescript/install.sh
impl/mcp-client-python/install.sh
mkdir -p "$CI_TMP/reports" # JSON reports for the matrix stage (scripts/matrix.sh names)

# expect VERDICT NAME [FLAGS...]: certify impl/NAME (its profile names the
# suite) and require VERDICT. The flags are those of scripts/matrix.sh --suite
# mcp, so stage 85 builds the MCP matrix from these reports.
expect() {
  local want=$1 name=$2 out="$CI_TMP/reports/$2.client-v1.json" status=0
  shift 2
  echo "+ conform run --role client --version 1 -j 2 --profile impl/$name $*"
  "$conform" run --role client --version 1 -j 2 --profile "impl/$name" "$@" --json-out "$out" > "$CI_TMP/$name.txt" || status=$?
  tail -1 "$CI_TMP/$name.txt"
  local got
  got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$out")
  if [ "$got" != "$want" ]; then
    cat "$CI_TMP/$name.txt"
    echo "$name: verdict $got (exit $status), want $want" >&2
    exit 1
  fi
  echo "$name: $got (exit $status), as expected"
}
expect CERTIFIED mcp-client-reference --exact
expect CERTIFIED mcp-client-typescript
# client-lifecycle-server-closes (an idle ClientSession is never told that the
# server ended the session) is informational: no keyword says what a client
# does then, so it is recorded and nothing is excused.
expect CERTIFIED mcp-client-python

echo "== parity gate: the three clients write the golden bytes on every required and recommended client vector"
echo "+ conform parity --suite suites/mcp --role client -j 2 --timeout 20s --impl reference=... --impl typescript=... --impl python=..."
"$conform" parity --suite suites/mcp --role client -j 2 --timeout 20s \
  --impl reference=impl/mcp-client-reference --impl typescript=impl/mcp-client-typescript --impl python=impl/mcp-client-python

echo "== the client goldens are the reference client's: golden --update on a copy changes nothing"
mkdir "$CI_TMP/mcp-client-copy"
(cd suites/mcp && cp -r suite.json MANIFEST.sha256 schemas vectors golden "$CI_TMP/mcp-client-copy/")
"$conform" golden --update --suite "$CI_TMP/mcp-client-copy" --role client -- \
  "${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}/mcp-client-reference/conform-mcp-reference-client" | tee "$CI_TMP/mcp-client-golden.txt"
grep -qE '^v1 client: 0 written, [0-9]+ unchanged, 0 removed' "$CI_TMP/mcp-client-golden.txt" || { echo "golden --update from the reference client changed the goldens" >&2; exit 1; }
diff -r suites/mcp/golden "$CI_TMP/mcp-client-copy/golden"
