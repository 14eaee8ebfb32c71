#!/bin/sh
# Builds the TypeScript agent port: installs the pinned compiler from
# package-lock.json (npm ci) and compiles src/ to dist/. Safe to run again.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npx --no-install tsc -p tsconfig.json
echo "built $(pwd)/dist/agent.js"
