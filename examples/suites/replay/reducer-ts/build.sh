#!/bin/sh
# Builds the TypeScript reducer: installs what package-lock.json pins
# (install.sh), then compiles src/ to dist/ unless dist/ is newer than every
# source. Safe to run again.
set -eu
cd "$(dirname "$0")"
./install.sh
if [ -f dist/main.js ] && [ -z "$(find src tsconfig.json node_modules/.installed-from -newer dist/main.js)" ]; then
  echo "dist/ is newer than src/: not compiled again"
else
  npx --no-install tsc -p tsconfig.json
fi
echo "built $(pwd)/dist/main.js"
