#!/bin/sh
# Builds the Rust port: target/release/conform-agent-rs. Idempotent; uses the
# committed Cargo.lock exactly (--locked).
set -eu
cd "$(dirname "$0")"
exec cargo build --release --locked "$@"
