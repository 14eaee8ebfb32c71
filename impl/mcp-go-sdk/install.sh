#!/bin/sh
# Builds conform's MCP echo/adder server around github.com/modelcontextprotocol/go-sdk
# (pinned to v1.8.0 in go.mod and go.sum) into
# ${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}/mcp-go-sdk-1.8.0/server.
# Go fetches the module through its proxy (by exact version). Idempotent.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
ver=1.8.0
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
out="$cache/mcp-go-sdk-$ver"
mkdir -p "$out"
cd "$here"
GOFLAGS=-mod=readonly go build -o "$out/server.tmp" .
mv "$out/server.tmp" "$out/server"
go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk | grep -qx "v$ver"
