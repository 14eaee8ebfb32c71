#!/bin/sh
# Installs bash-language-server 5.8.1 (pinned with every
# dependency in package.json and package-lock.json) into
# impl/lsp-bash/node_modules. Idempotent.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node -e "const v=require('./node_modules/bash-language-server/package.json').version; if (v!=='5.8.1') { console.error('install.sh: bash-language-server '+v+', want 5.8.1'); process.exit(1) }"
