#!/usr/bin/env bash
# Issue 16 (bounds): the streaming scan that tracks the requests of
# generated lines without building them must agree with the whole-line
# reader on any line cut anywhere. Bounded by a count of executions, as in
# 90-fuzz.sh (a duration can race Go's fuzz coordinator, golang/go#75804).
set -euo pipefail
echo "== fuzz FuzzScanRequest, bounded"
go test -run='^$' -fuzz='^FuzzScanRequest$' -fuzztime=150000x -fuzzminimizetime=0 ./runner
