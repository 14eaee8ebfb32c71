#!/bin/sh
# Builds conform's MCP echo/adder server around the crate rmcp (pinned to
# =3.11.0 in Cargo.toml, every dependency by Cargo.lock) into
# ${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}/mcp-rust-3.11.0/server.
# cargo fetches from crates.io. Idempotent (cargo rebuilds only what changed).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
ver=3.11.0
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
out="$cache/mcp-rust-$ver"
mkdir -p "$out"
cd "$here"
CARGO_TARGET_DIR="$out/target" cargo build --release --locked --quiet
cargo tree --locked --depth 1 --prefix none 2>/dev/null | grep -qx "rmcp v$ver"
cp "$out/target/release/conform-mcp-rust" "$out/server.tmp"
mv "$out/server.tmp" "$out/server"
