#!/usr/bin/env bash
set -euo pipefail
echo "== build the ports (TypeScript, Rust, Java; Python needs no build)"
impl/typescript/build.sh
impl/rust/build.sh
impl/java/build.sh

echo "== parity gate v1: reference (both binaries), four ports and the Claude CLI agree byte for byte"
"$conform" parity -j 2 \
  --impl reference=reference \
  --impl conform-reference="$reference_bin" \
  --impl python=impl/python \
  --impl typescript=impl/typescript \
  --impl rust=impl/rust \
  --impl java=impl/java \
  --impl claude-code=impl/claude-code

echo "== parity gate v2: reference (both binaries) and four ports"
"$conform" parity -j 2 --version 2 \
  --impl reference=reference \
  --impl conform-reference="$reference_bin" \
  --impl python=impl/python \
  --impl typescript=impl/typescript \
  --impl rust=impl/rust \
  --impl java=impl/java

echo "== parity gate, host role v1: reference (both binaries) and four ports"
"$conform" parity -j 2 --role host \
  --impl reference=reference \
  --impl conform-reference="$reference_bin" \
  --impl python=impl/python \
  --impl typescript=impl/typescript \
  --impl rust=impl/rust \
  --impl java=impl/java
