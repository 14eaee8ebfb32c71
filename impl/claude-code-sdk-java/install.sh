#!/bin/sh
# Builds the conform adapter around org.springaicommunity:claude-code-sdk
# (pinned to 1.0.0 in pom.xml; Maven resolves its dependencies from Maven
# Central into ~/.m2) and copies the adapter jar and every runtime jar into
# ${CONFORM_CACHE:-$HOME/.cache/conform}/claude-code-sdk-java-1.0.0/lib.
# Idempotent.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
ver=1.0.0
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
out="$cache/claude-code-sdk-java-$ver"
cd "$here"
mvn -q -B package -DskipTests
[ -f "target/lib/claude-code-sdk-$ver.jar" ] || { echo "install.sh: claude-code-sdk-$ver.jar not resolved" >&2; exit 1; }
rm -rf "$out.tmp"
mkdir -p "$out.tmp/lib"
cp target/lib/*.jar target/conform-claude-code-sdk-java-0.1.0.jar "$out.tmp/lib/"
rm -rf "$out"
mv "$out.tmp" "$out"
