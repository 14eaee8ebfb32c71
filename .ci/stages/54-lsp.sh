#!/usr/bin/env bash
# The LSP suite (suites/lsp, server role; docs/lsp.md) against real language
# servers (issue 32 item 3): each installed pinned by its own impl/lsp-*/install.sh
# (npm ci with a lock file, a PyPI virtual environment from requirements.txt,
# go install by exact version with the module hash checked, Debian apt by
# exact version) and certified against its reasoned expected-failure list;
# then two of them twice more, with the same status per vector in all three
# runs (the verdicts do not depend on timing on a loaded 2-core machine).
# The reports are saved as scripts/matrix.sh --suite lsp wants them, so the
# matrix stage can build docs/lsp-matrix from them.
#
# Measured here (2 cores, under heavy load from other work): 1–3 min per
# server (the vectors where a server never answers wait the quiet bound);
# a cold cache adds the npm, PyPI, Go and apt downloads and gopls' build
# (about 2 min).
set -euo pipefail
echo "== language servers (LSP suite, server role)"
# want NAME: the verdict the server's profile gives today. ruff, ty and clangd
# exit non-zero when stdin closes after shutdown without exit, which the suite
# (afterInput "either") counts against the preflight (lspimpl.SUITEBUGS.md item
# 1): NOT_CERTIFIED until the suite ends its sessions with exit or takes any
# exit status after end of input; then they are PASSED_WITH_EXPECTED_FAILURES
# (or CERTIFIED) like the others and this table changes with it.
# gopls v0.23.0 sometimes ends with half a frame: when stdin closes after the
# shutdown reply it exits between the header and the body of a notification
# it is writing (FRAME_TRUNCATED in cancel-after-response or
# text-sync-open-change-close, one run in three here; suites/lsp/OBSERVED.md),
# so its verdict may be either; an expected-failure entry cannot say "sometimes".
declare -A want=(
  [lsp-gopls]="PASSED_WITH_EXPECTED_FAILURES|NOT_CERTIFIED"
  [lsp-pyright]=PASSED_WITH_EXPECTED_FAILURES
  [lsp-typescript]=PASSED_WITH_EXPECTED_FAILURES
  [lsp-bash]=PASSED_WITH_EXPECTED_FAILURES
  [lsp-yaml]=PASSED_WITH_EXPECTED_FAILURES
  [lsp-vscode-css]=PASSED_WITH_EXPECTED_FAILURES
  [lsp-dockerfile]=PASSED_WITH_EXPECTED_FAILURES
  [lsp-pylsp]=PASSED_WITH_EXPECTED_FAILURES
  [lsp-jedi]=PASSED_WITH_EXPECTED_FAILURES
  [lsp-ruff]=NOT_CERTIFIED
  [lsp-ty]=NOT_CERTIFIED
  [lsp-clangd]=NOT_CERTIFIED
)
servers=(lsp-gopls lsp-pyright lsp-typescript lsp-bash lsp-yaml lsp-vscode-css lsp-dockerfile
  lsp-pylsp lsp-jedi lsp-ruff lsp-ty lsp-clangd)
for s in "${servers[@]}"; do
  "impl/$s/install.sh"
done
mkdir -p "$CI_TMP/reports" "$CI_TMP/lsp"

# verdict REPORT: the report's verdict.
verdict() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$1"; }
# statuses REPORT: one "id status" line per vector, sorted.
statuses() {
  python3 -c 'import json,sys
for r in sorted(json.load(open(sys.argv[1]))["results"], key=lambda r: r["id"]):
    print(r["id"], r["status"])' "$1"
}

# certify NAME WANT OUT: run the profile impl/NAME and require verdict WANT
# (one verdict, or several separated by "|").
# The flags are those of scripts/matrix.sh --suite lsp.
certify() {
  local name=$1 want=$2 out=$3 status=0 got
  "$conform" run --role server --version 1 -j 2 --profile "impl/$name" --json-out "$out" >"$out.txt" || status=$?
  got=$(verdict "$out")
  if [[ "|$want|" != *"|$got|"* ]]; then
    cat "$out.txt" >&2
    echo "$name: verdict $got (exit $status), want $want" >&2
    exit 1
  fi
  echo "$name: $got (exit $status), as expected"
}

for s in "${servers[@]}"; do
  certify "$s" "${want[$s]}" "$CI_TMP/reports/$s.server-v1.json"
done

echo "== stability: the same status per vector in three runs in a row"
for s in lsp-vscode-css lsp-dockerfile; do
  statuses "$CI_TMP/reports/$s.server-v1.json" >"$CI_TMP/lsp/$s.1"
  for run in 2 3; do
    certify "$s" "${want[$s]}" "$CI_TMP/lsp/$s.$run.json"
    statuses "$CI_TMP/lsp/$s.$run.json" >"$CI_TMP/lsp/$s.$run"
    if ! diff -u "$CI_TMP/lsp/$s.1" "$CI_TMP/lsp/$s.$run"; then
      echo "$s: run $run gave other statuses than run 1" >&2
      exit 1
    fi
  done
  echo "$s: $(wc -l <"$CI_TMP/lsp/$s.1") vectors, the same status in 3 runs"
done
