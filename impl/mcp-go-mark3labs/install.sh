#!/bin/sh
# Builds conform's MCP echo/adder server around github.com/mark3labs/mcp-go
# (pinned to v1.2.1 in go.mod and go.sum) into
# ${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}/mcp-go-mark3labs-1.2.1/server.
# Go fetches the module through its proxy (by exact version). Idempotent.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
ver=1.2.1
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
out="$cache/mcp-go-mark3labs-$ver"
mkdir -p "$out"
cd "$here"
GOFLAGS=-mod=readonly go build -o "$out/server.tmp" .
mv "$out/server.tmp" "$out/server"
go list -m -f '{{.Version}}' github.com/mark3labs/mcp-go | grep -qx "v$ver"
