#!/bin/sh
# Installs vscode-langservers-extracted 4.10.0 (pinned with every
# dependency in package.json and package-lock.json) into
# impl/lsp-vscode-css/node_modules. Idempotent.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node -e "const v=require('./node_modules/vscode-langservers-extracted/package.json').version; if (v!=='4.10.0') { console.error('install.sh: vscode-langservers-extracted '+v+', want 4.10.0'); process.exit(1) }"
