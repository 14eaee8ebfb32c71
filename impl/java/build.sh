#!/bin/sh
# Builds the Java port: target/conform-agent-java.jar (runnable, Jackson shaded in).
# Idempotent; needs Java 17+ and Maven 3.6.3+.
set -eu
cd "$(dirname "$0")"
exec mvn -q -B -Dstyle.color=never package -DskipTests "$@"
