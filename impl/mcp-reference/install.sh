#!/bin/sh
# Builds the suite's own MCP reference server (suites/mcp/reference, Go
# standard library only) into
# ${CONFORM_CACHE:-$HOME/.cache/conform}/mcp-reference/conform-mcp-reference.
# Idempotent: go build rebuilds only what changed.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
mkdir -p "$cache/mcp-reference"
cd "$here/../.."
go build -o "$cache/mcp-reference/conform-mcp-reference" ./suites/mcp/reference
