#!/usr/bin/env bash
# Issue 16 (bounds): the streaming scan that tracks the requests of
# generated lines without building them must agree with the whole-line
# reader on any line cut anywhere (FuzzScanPointers, runner/track_test.go;
# it was FuzzScanRequest before the envelope became suite data, and this
# stage fuzzed nothing from then until 2026-12-04: go test -fuzz with a
# name that matches no target only warns, so the name is checked first).
# Bounded by a count of executions, as in 90-fuzz.sh (a duration can race
# Go's fuzz coordinator, golang/go#75804).
set -euo pipefail
target=FuzzScanPointers
echo "== fuzz $target, bounded"
listed=$(go test -list "^$target\$" ./runner)
if ! grep -qx "$target" <<<"$listed"; then
  echo "no fuzz target $target in ./runner" >&2
  exit 1
fi
go test -run='^$' -fuzz="^$target\$" -fuzztime=150000x -fuzzminimizetime=0 ./runner
