#!/usr/bin/env bash
# The README's test command, with CONFORM_REQUIRE_TOOLS=1: a test that needs
# python3, node, bash or another outside tool (internal/testtool) fails
# here where plain `go test ./...` would skip it, so CI skips none of them.
# CONFORM_TEST_DEEP=1 runs the long scenarios (testtool.Long) and the larger
# samples of the differential tests that plain go test leaves out for time
# (docs/maintaining.md "What go test needs").
# The npm and cargo builds of docs/writing-a-suite.md run in stage 57.
#
# Then the skips are checked: every `--- SKIP` is printed with its message,
# and the stage fails on a skip for a tool this CI has or for a long
# scenario (neither should happen with the two variables set; this catches
# a test that skips on its own, without testtool). The skips that remain
# are about the platform (root, cgroup v1, inode flags, a runtime CI does
# not install such as ruby) and are listed, not failed.
set -euo pipefail
export CONFORM_REQUIRE_TOOLS=1
export CONFORM_TEST_DEEP=1
log="$CI_TMP/go-test.txt"
echo "== tests (README test command, CONFORM_REQUIRE_TOOLS=1 CONFORM_TEST_DEEP=1)"
if ! go test -v ./... >"$log" 2>&1; then
  grep -v -E '^=== (RUN|PAUSE|CONT|NAME)' "$log"
  exit 1
fi
grep -E '^(ok|FAIL|\?) ' "$log" | grep -v -E '^\? .*\[no test files\]$' || true

echo "== skips (go test -v: each --- SKIP with the lines logged before it)"
# A skipped test's message is the last log line before its --- SKIP line
# (go test -v prints a test's log, then its result).
skips="$CI_TMP/go-test-skips.txt"
awk '/^[[:space:]]*--- SKIP: /{print $0 "  <- " last; next} /^[[:space:]]+[^ ]/{last=$0}' "$log" | sed -E 's/[[:space:]]+/ /g' >"$skips"
cat "$skips"
echo "$(wc -l <"$skips") skipped"
# Tools CI installs (scripts/ci-tools.sh, the stages before this one): a
# skip that names one of them, or a long scenario left out, is a failure.
tools='python3|node|npm|npx|bash|sh|cargo|java|javac|perl|pgrep|setsid|xmllint|go'
if grep -E "(needs ($tools)\b|\b($tools) is not (installed|on PATH)|long scenario)" "$skips"; then
  echo "FAIL: the skips above are for a tool CI has or a long scenario: CI must run them" >&2
  exit 1
fi
