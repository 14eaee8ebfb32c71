#!/bin/sh
# Installs @modelcontextprotocol/server-filesystem 2026.8.31 (pinned with every
# dependency in package.json and package-lock.json) into
# impl/mcp-server-filesystem/node_modules. Idempotent.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node -e "const v=require('./node_modules/@modelcontextprotocol/server-filesystem/package.json').version; if (v!=='2026.8.31') { console.error('install.sh: server-filesystem '+v+', want 2026.8.31'); process.exit(1) }"
