#!/bin/sh
# Builds the Rust reducer: target/release/replay-reducer. Uses the committed
# Cargo.lock exactly (--locked). Safe to run again.
set -eu
cd "$(dirname "$0")"
cargo build --release --locked --quiet "$@"
echo "built $(pwd)/target/release/replay-reducer"
