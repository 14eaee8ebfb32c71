#!/usr/bin/env bash
set -euo pipefail
echo "== fuzz: the tape reader against Parse (validate's recording reader)"
# Bounded by an execution count, as in 90-fuzz.sh (golang/go#75804).
go test -run='^$' -fuzz='^FuzzTape$' -fuzztime=150000x -fuzzminimizetime=0 ./internal/canon
