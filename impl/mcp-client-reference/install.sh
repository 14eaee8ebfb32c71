#!/bin/sh
# Builds the suite's own MCP reference client (suites/mcp/reference-client,
# Go standard library only) into
# ${CONFORM_CACHE:-$HOME/.cache/conform}/mcp-client-reference/conform-mcp-reference-client.
# Idempotent: go build rebuilds only what changed.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
mkdir -p "$cache/mcp-client-reference"
cd "$here/../.."
go build -o "$cache/mcp-client-reference/conform-mcp-reference-client" ./suites/mcp/reference-client
