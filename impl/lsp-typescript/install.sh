#!/bin/sh
# Installs typescript-language-server 5.3.0 and typescript 5.9.3 (pinned with every
# dependency in package.json and package-lock.json) into
# impl/lsp-typescript/node_modules. Idempotent.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node -e "const v=require('./node_modules/typescript-language-server/package.json').version; if (v!=='5.3.0') { console.error('install.sh: typescript-language-server '+v+', want 5.3.0'); process.exit(1) }"
node -e "const v=require('./node_modules/typescript/package.json').version; if (v!=='5.9.3') { console.error('install.sh: typescript '+v+', want 5.9.3'); process.exit(1) }"
