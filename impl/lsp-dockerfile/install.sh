#!/bin/sh
# Installs dockerfile-language-server-nodejs 0.15.0 (pinned with every
# dependency in package.json and package-lock.json) into
# impl/lsp-dockerfile/node_modules. Idempotent.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node -e "const v=require('./node_modules/dockerfile-language-server-nodejs/package.json').version; if (v!=='0.15.0') { console.error('install.sh: dockerfile-language-server-nodejs '+v+', want 0.15.0'); process.exit(1) }"
