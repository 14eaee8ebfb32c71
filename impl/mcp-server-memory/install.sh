#!/bin/sh
# Installs @modelcontextprotocol/server-memory 2026.8.31 (pinned with every
# dependency in package.json and package-lock.json) into
# impl/mcp-server-memory/node_modules. Idempotent.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node -e "const v=require('./node_modules/@modelcontextprotocol/server-memory/package.json').version; if (v!=='2026.8.31') { console.error('install.sh: server-memory '+v+', want 2026.8.31'); process.exit(1) }"
