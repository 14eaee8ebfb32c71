#!/bin/sh
# Installs yaml-language-server 1.25.0 (pinned with every
# dependency in package.json and package-lock.json) into
# impl/lsp-yaml/node_modules. Idempotent.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node -e "const v=require('./node_modules/yaml-language-server/package.json').version; if (v!=='1.25.0') { console.error('install.sh: yaml-language-server '+v+', want 1.25.0'); process.exit(1) }"
