#!/bin/sh
# Installs pyright 1.1.414 (pinned with every
# dependency in package.json and package-lock.json) into
# impl/lsp-pyright/node_modules. Idempotent.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node -e "const v=require('./node_modules/pyright/package.json').version; if (v!=='1.1.414') { console.error('install.sh: pyright '+v+', want 1.1.414'); process.exit(1) }"
