#!/bin/sh
# Builds the conform adapter around the crate claude-agent-sdk-rs (pinned to
# =0.6.4 in Cargo.toml, every dependency by Cargo.lock) into
# ${CONFORM_CACHE:-$HOME/.cache/conform}/claude-agent-sdk-rs-0.6.4/adapter.
# cargo fetches from crates.io. Idempotent (cargo rebuilds only what changed).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
ver=0.6.4
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
out="$cache/claude-agent-sdk-rs-$ver"
mkdir -p "$out"
cd "$here"
CARGO_TARGET_DIR="$out/target" cargo build --release --locked --quiet
cargo tree --locked --depth 1 --prefix none 2>/dev/null | grep -qx "claude-agent-sdk-rs v$ver"
cp "$out/target/release/conform-claude-agent-sdk-rs" "$out/adapter.tmp"
mv "$out/adapter.tmp" "$out/adapter"
