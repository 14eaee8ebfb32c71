#!/usr/bin/env bash
set -euo pipefail
echo "== fuzz targets, bounded"
# Bounded by a count of executions (-fuzztime=Nx), not a duration: with a
# duration, Go's fuzz coordinator can report its own stop deadline as a
# failure ("context deadline exceeded", no input written) when a worker is
# mid-call as -fuzztime expires (golang/go#75804, fixed in Go 1.27; CI
# failed on it here with go1.26.8, on FuzzCanonical and later FuzzVector).
# A count has no deadline to race. -fuzzminimizetime=0: a newly
# interesting input is not minimized (that took up to 60 s); a crasher is
# still written to testdata/fuzz, just not minimized. 150,000 executions
# take 4-8 s per target here.
for target in "FuzzCanonical ./internal/canon" "FuzzParse ./internal/canon" "FuzzApply ./internal/normalize" "FuzzVector ./internal/suite" "FuzzFrame ./runner" "FuzzParseDifferential ./internal/canon" "FuzzDispatch ./internal/schema"; do
  set -- $target
  # go test -fuzz with a name that matches no target only warns and passes
  # (stage 91 fuzzed nothing for days that way): check the name first.
  listed=$(go test -list "^$1\$" "$2")
  grep -qx "$1" <<<"$listed" || { echo "no fuzz target $1 in $2" >&2; exit 1; }
  go test -run='^$' -fuzz="^$1\$" -fuzztime=150000x -fuzzminimizetime=0 "$2"
done
