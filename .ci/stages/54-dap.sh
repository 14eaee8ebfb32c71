#!/usr/bin/env bash
# The DAP suite (suites/dap, adapter role; docs/dap.md): the suite's own
# reference adapter certified byte for byte (--exact), then every other
# debug adapter profiled under impl/dap-*, installed pinned by its own
# script and certified against its reasoned expected-failure list, three
# times with the same status per vector (issue 32: honest, stable verdicts).
# Reports go to $CI_TMP/reports for the DAP matrix (stage 85).
set -euo pipefail
echo "== DAP adapters (adapter role): the reference, then impl/dap-*"
mkdir -p "$CI_TMP/reports" "$CI_TMP/dap"

verdict() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$1"; }
statuses() { python3 scripts/statuses.py "$1"; } # an intermittent expected failure counts as one status

# certify NAME OUT WANT...: run the profile impl/NAME and require one of the
# verdicts WANT. The flags are those of scripts/matrix.sh --suite dap.
certify() {
  local name=$1 out=$2 status=0 got flags=()
  shift 2
  [ "$name" = dap-reference ] && flags=(--exact)
  "$conform" run --role adapter --version 1 -j 2 --profile "impl/$name" "${flags[@]}" --json-out "$out" >"$out.txt" || status=$?
  got=$(verdict "$out")
  for want in "$@"; do
    if [ "$got" = "$want" ]; then
      echo "$name: $got (exit $status), as expected"
      return
    fi
  done
  cat "$out.txt" >&2
  echo "$name: verdict $got (exit $status), want one of: $*" >&2
  exit 1
}

impl/dap-reference/install.sh
certify dap-reference "$CI_TMP/reports/dap-reference.adapter-v1.json" CERTIFIED

for dir in impl/dap-*/; do
  s=$(basename "$dir")
  [ "$s" = dap-reference ] && continue
  "$dir/install.sh"
  certify "$s" "$CI_TMP/reports/$s.adapter-v1.json" CERTIFIED PASSED_WITH_EXPECTED_FAILURES
  statuses "$CI_TMP/reports/$s.adapter-v1.json" >"$CI_TMP/dap/$s.1"
  for run in 2 3; do
    certify "$s" "$CI_TMP/dap/$s.$run.json" CERTIFIED PASSED_WITH_EXPECTED_FAILURES
    statuses "$CI_TMP/dap/$s.$run.json" >"$CI_TMP/dap/$s.$run"
    if ! diff -u "$CI_TMP/dap/$s.1" "$CI_TMP/dap/$s.$run"; then
      echo "$s: run $run gave other statuses than run 1" >&2
      exit 1
    fi
  done
  echo "$s: $(wc -l <"$CI_TMP/dap/$s.1") vectors, the same status in 3 runs"
done
