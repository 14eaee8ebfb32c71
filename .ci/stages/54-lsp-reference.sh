#!/usr/bin/env bash
# The LSP suite (suites/lsp, docs/lsp.md): its own files validate (every
# schema definition covered by a valid message vector), the reference
# language server passes its unit tests and is CERTIFIED with exact parity
# on every class, and the committed goldens are the reference's (golden
# --update on a copy changes nothing). The real language servers are
# certified by their own stage (issue 32 item 3). Measured here (2 cores):
# a few seconds.
set -euo pipefail
echo "== LSP suite: validate, the reference server's tests, its certificate, the goldens"
"$conform" validate --suite suites/lsp
go test ./suites/lsp/...
go build -o "$CI_TMP/conform-lsp-reference" ./suites/lsp/reference
mkdir -p "$CI_TMP/reports"
out="$CI_TMP/reports/lsp-reference.server-v1.json"
status=0
"$conform" run --suite suites/lsp --exact -j 2 --json-out "$out" -- "$CI_TMP/conform-lsp-reference" >"$CI_TMP/lsp-reference.txt" || status=$?
tail -1 "$CI_TMP/lsp-reference.txt"
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$out")
if [ "$got" != CERTIFIED ]; then
  cat "$CI_TMP/lsp-reference.txt"
  echo "lsp reference: verdict $got (exit $status), want CERTIFIED" >&2
  exit 1
fi
mkdir "$CI_TMP/lsp-copy"
(cd suites/lsp && cp -r suite.json MANIFEST.sha256 schemas vectors golden "$CI_TMP/lsp-copy/")
"$conform" golden --update --suite "$CI_TMP/lsp-copy" -- "$CI_TMP/conform-lsp-reference" | tee "$CI_TMP/lsp-golden.txt"
grep -qE '^v1 server: 0 written, [0-9]+ unchanged, 0 removed' "$CI_TMP/lsp-golden.txt" || { echo "golden --update from the reference changed the goldens" >&2; exit 1; }
diff -r suites/lsp/golden "$CI_TMP/lsp-copy/golden"
