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
# not install) and are listed, not failed.
set -euo pipefail
export CONFORM_REQUIRE_TOOLS=1
scripts/install-ruby.sh # the RUBYOPT case of TestSuiteRunsNoCode
export CONFORM_TEST_DEEP=1
log="$CI_TMP/go-test.txt"
echo "== tests (README test command, CONFORM_REQUIRE_TOOLS=1 CONFORM_TEST_DEEP=1)"
# Run once with -v (the skips' messages are in its log), then the README's
# command as written, which go test answers from its cache of that run.
if ! go test -v ./... >"$log" 2>&1; then
  grep -v -E '^=== (RUN|PAUSE|CONT|NAME)' "$log"
  exit 1
fi
go test ./...

echo "== skips (each --- SKIP with the last line its test logged)"
# go test -v heads each stretch of a test's output with "=== RUN|CONT|NAME
# name"; a skipped test's message is the last line logged under its name.
skips="$CI_TMP/go-test-skips.txt"
awk '/^=== (RUN|CONT|NAME|PAUSE) / {cur = $3; next}
  /^[[:space:]]*--- (PASS|FAIL|SKIP): / {if ($2 == "SKIP:") print $0 "  <- " msg[$3]; next}
  /^[[:space:]]+[^[:space:]]/ {if (cur != "") msg[cur] = $0}' "$log" | sed -E 's/[[:space:]]+/ /g' >"$skips"
cat "$skips"
echo "$(wc -l <"$skips") skipped"
# Tools CI installs (scripts/ci-tools.sh, the stages before this one): a
# skip that names one of them, or a long scenario left out, is a failure.
tools='python3|node|npm|npx|bash|sh|cargo|java|javac|jar|perl|ruby|pgrep|setsid|xmllint|go'
if grep -E "(needs ($tools)\b|\b($tools) (is not (installed|on PATH)|not found|names no interpreter)|\bno ($tools) on PATH|needs a loopback network|skipped; CI sets|long scenario)" "$skips"; then
  echo "FAIL: the skips above are for a tool CI has, the loopback network or a long scenario: CI must run them" >&2
  exit 1
fi
