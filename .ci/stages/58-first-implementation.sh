#!/usr/bin/env bash
# First contact (docs/first-implementation.md, docs/first-mcp-server.md): the
# two minimal example agents and the example MCP server are certified in full
# (no --filter, no expected failures), the two tutorials run
# as written (TestTutorial: its excerpts rebuild the Python example step by
# step, its commands run and print what the page shows), and a run in a
# terminal shows each vector once.
# Measured here (2 cores): 40-45 s (the tutorial test about 20 s of it),
# and about 25 s more for the MCP example and its page.
set -euo pipefail

certified() { # certified NAME -- IUT...: the run must end CERTIFIED
  local name=$1 out="$CI_TMP/$1.txt"
  shift 2
  if ! "$conform" run -j 2 -- "$@" >"$out"; then
    cat "$out"
    echo "$name: the run failed" >&2
    exit 1
  fi
  tail -1 "$out"
  grep -q '^CERTIFIED: ' "$out" || { cat "$out"; echo "$name: not CERTIFIED" >&2; exit 1; }
}

echo "== examples/python/agent.py: certified"
certified python -- python3 "$PWD/examples/python/agent.py"

echo "== examples/go: vet, build, certified"
(cd examples/go && test -z "$(gofmt -l .)" && go vet . && go build -o "$CI_TMP/example-agent-go" .)
certified go -- "$CI_TMP/example-agent-go"

echo "== the tutorial runs as written (go test -run TestTutorial)"
CONFORM_REQUIRE_TOOLS=1 CONFORM_TEST_DEEP=1 go test -count=1 -v -run '^TestTutorial$' ./cmd/conform >"$CI_TMP/tutorial.txt" 2>&1 || { cat "$CI_TMP/tutorial.txt"; exit 1; }
grep -q -- '--- PASS: TestTutorial ' "$CI_TMP/tutorial.txt" || { cat "$CI_TMP/tutorial.txt"; echo "TestTutorial did not run (skipped?)" >&2; exit 1; }
grep -E '^\s+# docs/first-implementation.md:[0-9]+: ' "$CI_TMP/tutorial.txt" | sed 's/^\s*//'

echo "== examples/mcp-python/server.py: certified against the MCP suite (docs/first-mcp-server.md)"
out="$CI_TMP/mcp-python-example.txt"
"$conform" run -j 2 --suite suites/mcp --role server -- python3 "$PWD/examples/mcp-python/server.py" >"$out" || { cat "$out"; echo "the MCP example failed" >&2; exit 1; }
tail -1 "$out"
grep -q '^CERTIFIED: ' "$out" || { cat "$out"; echo "the MCP example is not CERTIFIED" >&2; exit 1; }

echo "== the MCP server page runs as written (go test -run TestFirstMCPServer)"
CONFORM_REQUIRE_TOOLS=1 CONFORM_TEST_DEEP=1 go test -count=1 -v -run '^(TestFirstMCPServer|TestCheckVerdict)$' ./cmd/conform >"$CI_TMP/first-mcp.txt" 2>&1 || { cat "$CI_TMP/first-mcp.txt"; exit 1; }
grep -q -- '--- PASS: TestFirstMCPServer ' "$CI_TMP/first-mcp.txt" || { cat "$CI_TMP/first-mcp.txt"; echo "TestFirstMCPServer did not run (skipped?)" >&2; exit 1; }
grep -E 'names no classes yet' "$CI_TMP/first-mcp.txt" | sed 's/^\s*//' || true

echo "== a terminal shows each vector once (script(1) gives the run a pseudo-terminal)"
tty_out="$CI_TMP/tty.txt"
script -qec "stty cols 120; '$conform' run -j 2 --filter 'set-model-*' -- python3 '$PWD/examples/python/agent.py'" /dev/null >"$tty_out"
ids=$("$conform" list | awk '$1 ~ /^set-model-/ && $2 == "session" {print $1}')
for id in $ids; do
  # The terminal gets colours (--color auto): strip them before counting.
  n=$(tr '\r' '\n' <"$tty_out" | sed 's/\x1b\[[0-9;]*m//g' | grep -cE "^ *[A-Z_]+ +$id( |$)" || true)
  [ "$n" = 1 ] || { cat -A "$tty_out" | head -40; echo "$id: $n lines on the terminal, want 1" >&2; exit 1; }
done
echo "$(echo "$ids" | wc -w) vectors, one line each"
