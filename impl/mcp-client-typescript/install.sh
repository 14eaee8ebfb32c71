#!/bin/sh
# Installs @modelcontextprotocol/sdk 1.32.2 and zod 4.6.7 (pinned in
# package.json and package-lock.json, the versions impl/mcp-typescript
# pins) into impl/mcp-client-typescript/node_modules. Idempotent.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node -e "const v=require('./node_modules/@modelcontextprotocol/sdk/package.json').version; if (v!=='1.32.2') { console.error('install.sh: @modelcontextprotocol/sdk '+v+', want 1.32.2'); process.exit(1) }"
