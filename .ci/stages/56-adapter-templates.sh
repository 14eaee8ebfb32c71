#!/usr/bin/env bash
# The adapter templates of impl/templates (one per language, the starting
# point of docs/certify-sdk.md) are built and certified in
# spawned mode, so a maintainer starts from something that passes.
# Measured here (2 cores): 179 s, most of it the Java run and the first
# Rust build.
set -euo pipefail
echo "== adapter templates (host role, spawned): Python, TypeScript, Go, Rust, Java"
t=impl/templates
"$conform" run --role host --mode spawned -j 2 -- python3 "$PWD/$t/python/adapter.py"
"$t/typescript/build.sh"
"$conform" run --role host --mode spawned -j 2 -- node "$PWD/$t/typescript/dist/adapter.js"
(cd "$t/go" && go vet . && go build -o "$CI_TMP/go-adapter-template" .)
"$conform" run --role host --mode spawned -j 2 -- "$CI_TMP/go-adapter-template"
(cd "$t/rust" && CARGO_TARGET_DIR="$CI_TMP/rust-template" cargo build --release --locked --quiet)
"$conform" run --role host --mode spawned -j 2 -- "$CI_TMP/rust-template/release/conform-adapter-template"
(cd "$t/java" && mvn -q -B package)
"$conform" run --role host --mode spawned -j 2 -- java -cp "$PWD/$t/java/target/lib/*:$PWD/$t/java/target/classes" conform.Adapter
