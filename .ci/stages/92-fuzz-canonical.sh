#!/usr/bin/env bash
set -euo pipefail
echo "== fuzz: the direct RFC 8785 writer against encoding/json + jcs.Transform"
# Bounded by an execution count, as in 90-fuzz.sh (golang/go#75804).
go test -run='^$' -fuzz='^FuzzCanonicalDirect$' -fuzztime=150000x -fuzzminimizetime=0 ./internal/canon
