#!/usr/bin/env bash
# The community SDKs as spawned host-role IUTs, each installed pinned by its
# own script (Go module proxy, crates.io, Maven Central) and certified
# against its reasoned expected-failure list. Measured here (2 cores):
# 251 s with the SDKs already built; a cold cache adds the Rust build
# (about 95 s) and the downloads. The Java run is most of it (a JVM per
# vector and the 5 s timeout on the requests the SDK never answers).
set -euo pipefail
echo "== community SDKs (host role, spawned): Go, Rust, Java"
impl/claude-agent-sdk-go/install.sh
impl/claude-agent-sdk-rs/install.sh
impl/claude-code-sdk-java/install.sh
"$conform" run --role host --profile impl/claude-agent-sdk-go -j 2
"$conform" run --role host --profile impl/claude-agent-sdk-rs -j 2
"$conform" run --role host --profile impl/claude-code-sdk-java -j 2
