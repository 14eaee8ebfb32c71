#!/bin/sh
# Builds the TypeScript reducer: installs what package-lock.json pins
# (install.sh), then compiles src/ to dist/. Safe to run again.
set -eu
cd "$(dirname "$0")"
./install.sh
npx --no-install tsc -p tsconfig.json
echo "built $(pwd)/dist/main.js"
