#!/usr/bin/env bash
# Writes the certification matrix of every implementation CI certifies:
# docs/matrix.md and docs/matrix.html (the overview), docs/matrix/NAME.md and
# NAME.html (a page per implementation: its failures grouped by cause),
# docs/matrix/NAME*.svg (its badges), and the generated results block of each
# profile's README.md (conform matrix --pages --readmes; docs/certification.md
# "Certification matrix"). The CLI's page shows its releases from the timeline's recordings
# (--trend). The same reports give the same bytes: no durations or stderr,
# and each run's date and kit come from its report (one "Run on ..." line per
# run, which CI's comparison leaves out); rows sorted by vector id; columns in
# the order of the list below.
#
#   scripts/matrix.sh                 certify everything below here (slow: the CLI and
#                                     the SDKs take minutes), then write both files
#   scripts/matrix.sh --reports DIR   reuse DIR/NAME.ROLE-vVERSION.json where an earlier
#                                     step saved it (conform run ... --json-out FILE, as the
#                                     CI stages do), certify the rest and save their reports
#                                     there too
#   scripts/matrix.sh --no-build      do not run the profiles' build.sh or install.sh
#                                     (CI: earlier stages built and installed them)
#   scripts/matrix.sh --suite mcp     the MCP suite's matrix instead (suites/mcp; docs/mcp-matrix.md,
#                                     docs/mcp-matrix.html, docs/mcp-matrix/): the same code, another list
#   scripts/matrix.sh --suite dap     the DAP suite's (suites/dap; docs/dap-matrix.md, .html, docs/dap-matrix/)
#   scripts/matrix.sh --suite lsp     the LSP suite's matrix (suites/lsp; docs/lsp-matrix.md,
#                                     docs/lsp-matrix.html, docs/lsp-matrix/): the real language servers
#
# $conform names the conform binary (default: built from this checkout).
# CI (.ci/stages/85-matrix.sh) runs it and fails when the committed files
# differ from what it wrote.
set -euo pipefail
cd "$(dirname "$0")/.."

# One certification per line: NAME ROLE VERSION TARGET [conform run flags...].
# TARGET is "reference" (the Go reference embedded in conform) or a profile
# directory; a profile's build.sh or install.sh runs first when this script
# certifies it itself. A CI stage that certifies one of these saves its report
# as $CI_TMP/reports/NAME.ROLE-vVERSION.json with the same flags (the matrix
# shows each run's command line, so a stage that ran it another way shows up
# as a difference). Adding an implementation is one line here; lines starting
# with "#" are skipped.
certifications='
reference             agent 1 reference --exact
reference             agent 2 reference --exact
reference             host  1 reference --exact
reference             host  2 reference --exact
python                agent 1 impl/python
python                agent 2 impl/python
python                host  1 impl/python
typescript            agent 1 impl/typescript
typescript            agent 2 impl/typescript
typescript            host  1 impl/typescript
rust                  agent 1 impl/rust
rust                  agent 2 impl/rust
rust                  host  1 impl/rust
java                  agent 1 impl/java
java                  agent 2 impl/java
java                  host  1 impl/java
claude-code           agent 1 impl/claude-code
agent-sdk-ts          host  1 impl/agent-sdk-ts
agent-sdk-python      host  1 impl/agent-sdk-python
claude-agent-sdk-go   host  1 impl/claude-agent-sdk-go
claude-agent-sdk-rs   host  1 impl/claude-agent-sdk-rs
claude-code-sdk-java  host  1 impl/claude-code-sdk-java
'

# The MCP suite's servers and clients (suites/mcp; each profile names the suite
# and its role; the clients' reports come from CI stage 53).
mcp_certifications='
mcp-reference         server 1 impl/mcp-reference --exact
mcp-typescript        server 1 impl/mcp-typescript
mcp-python            server 1 impl/mcp-python
mcp-go-sdk            server 1 impl/mcp-go-sdk
mcp-go-mark3labs      server 1 impl/mcp-go-mark3labs
mcp-java              server 1 impl/mcp-java
mcp-rust              server 1 impl/mcp-rust
mcp-server-everything server 1 impl/mcp-server-everything
mcp-server-filesystem server 1 impl/mcp-server-filesystem
mcp-server-memory     server 1 impl/mcp-server-memory
mcp-client-reference  client 1 impl/mcp-client-reference --exact
mcp-client-typescript client 1 impl/mcp-client-typescript
mcp-client-python     client 1 impl/mcp-client-python
'

# The DAP suite's debug adapters (suites/dap, adapter role; docs/dap.md). The
# real adapters' profiles (impl/dap-*) add their lines here.
dap_certifications='
dap-reference         adapter 1 impl/dap-reference --exact
dap-debugpy           adapter 1 impl/dap-debugpy
dap-lldb              adapter 1 impl/dap-lldb
'

# The LSP suite's language servers (suites/lsp; each profile names the suite
# and its role; .ci/stages/54-lsp.sh certifies them with these flags).
lsp_certifications='
lsp-gopls             server 1 impl/lsp-gopls
lsp-pyright           server 1 impl/lsp-pyright
lsp-typescript        server 1 impl/lsp-typescript
lsp-bash              server 1 impl/lsp-bash
lsp-yaml              server 1 impl/lsp-yaml
lsp-vscode-css        server 1 impl/lsp-vscode-css
lsp-dockerfile        server 1 impl/lsp-dockerfile
lsp-pylsp             server 1 impl/lsp-pylsp
lsp-jedi              server 1 impl/lsp-jedi
lsp-ruff              server 1 impl/lsp-ruff
lsp-ty                server 1 impl/lsp-ty
lsp-clangd            server 1 impl/lsp-clangd
'

reports=""
build=1
which=control
while [ $# -gt 0 ]; do
  case "$1" in
    --reports) reports="${2:?--reports needs a directory}"; shift 2 ;;
    --no-build) build=0; shift ;;
    --suite) which="${2:?--suite needs control, mcp, lsp or dap}"; shift 2 ;;
    *) echo "usage: scripts/matrix.sh [--suite control|mcp|lsp|dap] [--reports DIR] [--no-build]" >&2; exit 2 ;;
  esac
done
case "$which" in
  control) out=docs/matrix suite_args=() trend=(--trend claude-code=impl/claude-code-timeline/recordings) ;;
  mcp) certifications=$mcp_certifications out=docs/mcp-matrix suite_args=(--suite suites/mcp) trend=() ;;
  lsp) certifications=$lsp_certifications out=docs/lsp-matrix suite_args=(--suite suites/lsp) trend=() ;;
  dap) certifications=$dap_certifications out=docs/dap-matrix suite_args=(--suite suites/dap) trend=() ;;
  *) echo "scripts/matrix.sh: --suite is control, mcp, lsp or dap" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${conform:-}" ]; then
  conform="$tmp/conform"
  go build -o "$conform" ./cmd/conform
fi
if [ -z "$reports" ]; then
  reports="$tmp/reports"
fi
mkdir -p "$reports"

declare -A prepared=()
from=()
while read -r -u 3 name role version target flags; do
  case "$name" in "" | "#"*) continue ;; esac
  report="$reports/$name.$role-v$version.json"
  from+=(--from "$name=$report")
  if [ -s "$report" ]; then
    echo "matrix: $name $role v$version: reusing $report" >&2
    continue
  fi
  args=(run --role "$role" --version "$version" -j 2)
  if [ "$target" != reference ]; then
    if [ "$build" = 1 ] && [ -z "${prepared[$target]:-}" ]; then
      for step in build.sh install.sh; do
        if [ -x "$target/$step" ]; then
          echo "matrix: $target/$step" >&2
          "$target/$step" > /dev/null < /dev/null
        fi
      done
      prepared[$target]=1
    fi
    args+=(--profile "$target")
  fi
  # shellcheck disable=SC2206 # flags are single words
  args+=($flags)
  echo "matrix: $name $role v$version: conform ${args[*]}" >&2
  status=0
  "$conform" "${args[@]}" --json-out "$report" > "$tmp/run.txt" < /dev/null || status=$?
  case $status in
    0) ;;
    1) echo "matrix: $name $role v$version did not pass (the matrix shows it):" >&2
       tail -n 5 "$tmp/run.txt" >&2 ;;
    *) cat "$tmp/run.txt" >&2
       echo "matrix: conform ${args[*]} exited $status" >&2
       exit 1 ;;
  esac
done 3<<< "$certifications"

# Pages of implementations no longer listed must not linger.
mkdir -p "$out"
rm -f "$out"/*.md "$out"/*.html "$out"/*.svg
"$conform" matrix "${suite_args[@]}" "${from[@]}" "${trend[@]}" --format markdown --out "$out.md" --pages "$out" --readmes
"$conform" matrix "${suite_args[@]}" "${from[@]}" "${trend[@]}" --format html --out "$out.html" --pages "$out"
echo "matrix: wrote $out.md, $out.html, $out/ and the profiles' results blocks" >&2
