#!/usr/bin/env bash
# The README's test command, with CONFORM_REQUIRE_TOOLS=1: a test that needs
# python3, node, bash or another outside tool (internal/testtool) fails
# here where plain `go test ./...` would skip it, so CI skips none of them.
# CONFORM_TEST_DEEP=1 restores the larger samples plain go test cuts for time.
# The npm and cargo builds of docs/writing-a-suite.md run in stage 57.
set -euo pipefail
export CONFORM_REQUIRE_TOOLS=1
export CONFORM_TEST_DEEP=1 # the larger samples of the differential tests (docs/maintaining.md)
scripts/install-ruby.sh # the RUBYOPT case of TestSuiteRunsNoCode
echo "== tests (README test command, CONFORM_REQUIRE_TOOLS=1)"
go test ./...
