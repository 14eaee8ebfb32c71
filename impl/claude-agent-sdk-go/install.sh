#!/bin/sh
# Builds the conform adapter around github.com/severity1/claude-agent-sdk-go
# (pinned to v0.6.12 in go.mod and go.sum) into
# ${CONFORM_CACHE:-$HOME/.cache/conform}/claude-agent-sdk-go-0.6.12/adapter.
# Go fetches the module through its proxy (by exact version). Idempotent.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
ver=0.6.12
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
out="$cache/claude-agent-sdk-go-$ver"
mkdir -p "$out"
cd "$here"
GOFLAGS=-mod=readonly go build -o "$out/adapter" .
go list -m -f '{{.Version}}' github.com/severity1/claude-agent-sdk-go | grep -qx "v$ver"
