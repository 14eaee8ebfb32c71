#!/usr/bin/env bash
set -euo pipefail
# A glob that matches nothing (impl/lsp-*/README.md: the language servers' profiles
# have none) is left out of the lists below, not passed to git as a pathspec.
shopt -s nullglob
echo "== the committed certification matrix is current (docs/matrix.md, docs/matrix.html, docs/matrix/, the profiles' README results)"
# Reuses the reports the certification stages saved in $CI_TMP/reports
# (conform run --json-out); runs the rest (the ports, which stage 40 gates with
# conform parity) here. Regenerated from scratch by scripts/matrix.sh.
mkdir -p "$CI_TMP/reports"
scripts/matrix.sh --reports "$CI_TMP/reports" --no-build
generated=(docs/matrix.md docs/matrix.html docs/matrix impl/*/README.md)
# Each run's "Run on DATE by conform KIT ..." line comes from its report and
# changes with every run by design (docs/certification.md "The committed
# matrix"): the comparison leaves those lines out, and nothing else.
run_lines='^(Run (on|by) |<p class="provenance">Run)'
changed() {
  git status --porcelain -- "$@" | grep -v '^ M ' || true
  git --no-pager diff --quiet -I "$run_lines" -- "$@" || echo "modified"
}
if [ -n "$(changed "${generated[@]}")" ]; then
  git status --porcelain -- "${generated[@]}"
  git --no-pager diff --stat -- "${generated[@]}"
  git --no-pager diff -- docs/matrix.md impl/*/README.md | head -n 80 || true
  echo "the committed matrix is stale: run scripts/matrix.sh and commit docs/matrix.md, docs/matrix.html, docs/matrix/ and the profiles' README.md" >&2
  exit 1
fi

echo "== the committed MCP matrix is current (docs/mcp-matrix.md, docs/mcp-matrix.html, docs/mcp-matrix/)"
# From the reports stage 52 saved; the same code as the control matrix.
scripts/matrix.sh --suite mcp --reports "$CI_TMP/reports" --no-build
generated=(docs/mcp-matrix.md docs/mcp-matrix.html docs/mcp-matrix impl/mcp-*/README.md)
# Third-party servers are not fully deterministic (how far a cancelled
# call got differs between runs; on 2026-12-01 id-reused-after-response
# flipped for the Java and go-sdk servers until the vector waited for the
# answer it compares), so the gate is each implementation's verdict and counts
# (the overview's implementation rows); any other difference is printed.
if [ -n "$(git status --porcelain -- "${generated[@]}")" ]; then
  git status --porcelain -- "${generated[@]}"
  git --no-pager diff -- docs/mcp-matrix.md | head -n 80 || true
  if git --no-pager diff -U0 -- docs/mcp-matrix.md | grep -qE '^[-+]\| \[mcp'; then
    echo "the committed MCP matrix is stale (a verdict or count differs): run scripts/matrix.sh --suite mcp and commit docs/mcp-matrix*, impl/mcp-*/README.md" >&2
    exit 1
  fi
  echo "note: the MCP matrix pages differ from this run in results that decide no verdict or count (above); verdicts and counts are current"
  git checkout -- "${generated[@]}"
fi

echo "== the committed DAP matrix is current (docs/dap-matrix.md, docs/dap-matrix.html, docs/dap-matrix/)"
# From the reports stage 54 saved; gated like the MCP matrix: verdicts and counts.
scripts/matrix.sh --suite dap --reports "$CI_TMP/reports" --no-build
generated=(docs/dap-matrix.md docs/dap-matrix.html docs/dap-matrix impl/dap-*/README.md)
if [ -n "$(git status --porcelain -- "${generated[@]}")" ]; then
  git status --porcelain -- "${generated[@]}"
  git --no-pager diff -- docs/dap-matrix.md | head -n 80 || true
  if git --no-pager diff -U0 -- docs/dap-matrix.md | grep -qE '^[-+]\| \[dap'; then
    echo "the committed DAP matrix is stale (a verdict or count differs): run scripts/matrix.sh --suite dap and commit docs/dap-matrix*, impl/dap-*/README.md" >&2
    exit 1
  fi
  echo "note: the DAP matrix pages differ from this run in results that decide no verdict or count (above); verdicts and counts are current"
  git checkout -- "${generated[@]}"
fi

echo "== the committed LSP matrix is current (docs/lsp-matrix.md, docs/lsp-matrix.html, docs/lsp-matrix/)"
# From the reports stage 54-lsp saved; gated like the MCP matrix: each
# language server's verdict and counts (a third-party server's exact output,
# and gopls' verdict, differ between runs: .ci/stages/54-lsp.sh).
scripts/matrix.sh --suite lsp --reports "$CI_TMP/reports" --no-build
generated=(docs/lsp-matrix.md docs/lsp-matrix.html docs/lsp-matrix impl/lsp-*/README.md)
if [ -n "$(git status --porcelain -- "${generated[@]}")" ]; then
  git status --porcelain -- "${generated[@]}"
  git --no-pager diff -- docs/lsp-matrix.md | head -n 80 || true
  if git --no-pager diff -U0 -- docs/lsp-matrix.md | grep -E '^[-+]\| \[lsp' | grep -qv '^[-+]| \[lsp-gopls\]'; then
    echo "the committed LSP matrix is stale (a verdict or count differs): run scripts/matrix.sh --suite lsp and commit docs/lsp-matrix*, impl/lsp-*/README.md" >&2
    exit 1
  fi
  echo "note: the LSP matrix pages differ from this run in results that decide no verdict or count, or in gopls' racy row (above); verdicts and counts are current"
  git checkout -- "${generated[@]}"
fi

# On a CI system with step summaries (GitHub Actions), the matrix is shown there.
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat docs/matrix.md >> "$GITHUB_STEP_SUMMARY"
fi

echo "== the matrix page in a real browser (Debian's headless Chromium)"
scripts/install-chromium.sh
# CONFORM_BROWSER=require: a missing Chromium fails here instead of skipping;
# CONFORM_TEST_DEEP=1: TestClassPageInBrowser is a long scenario (testtool.Long).
# The screenshot and the hostile page stay in internal/report/testdata/browser-out/.
CONFORM_BROWSER=require CONFORM_TEST_DEEP=1 go test -count=1 -v -run '^(TestPage|TestConsoleErrors|TestMatrixHTMLInBrowser|TestImplementationPageInBrowser|TestClassPageInBrowser)$' ./internal/browser/ ./internal/report/
