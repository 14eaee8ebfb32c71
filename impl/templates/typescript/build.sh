#!/bin/sh
# Installs the pinned compiler (package-lock.json) and compiles adapter.ts
# to dist/adapter.js. Safe to run again.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
npx --no-install tsc -p tsconfig.json
