#!/bin/sh
# Builds conform's MCP echo/adder server around io.modelcontextprotocol.sdk:mcp
# (pinned to 2.1.0 in pom.xml; Maven resolves its dependencies from Maven
# Central into ~/.m2) and copies the server jar and every runtime jar into
# ${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}/mcp-java-2.1.0/lib.
# Idempotent.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
ver=2.1.0
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
out="$cache/mcp-java-$ver"
cd "$here"
mvn -q -B package -DskipTests
[ -f "target/lib/mcp-core-$ver.jar" ] || { echo "install.sh: mcp-core-$ver.jar not resolved" >&2; exit 1; }
rm -rf "$out.tmp"
mkdir -p "$out.tmp/lib"
cp target/lib/*.jar target/conform-mcp-java-0.1.0.jar "$out.tmp/lib/"
rm -rf "$out"
mv "$out.tmp" "$out"
