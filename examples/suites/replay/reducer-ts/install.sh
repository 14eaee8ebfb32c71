#!/bin/sh
# Installs the pinned compiler and Node types exactly as package-lock.json
# says (npm ci). Safe to run again: when node_modules was installed from this
# very package-lock.json it is left as it is (remove node_modules to force).
set -eu
cd "$(dirname "$0")"
lock=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f node_modules/.installed-from ] && [ "$(cat node_modules/.installed-from)" = "$lock" ]; then
  echo "node_modules is installed from package-lock.json $lock"
  exit 0
fi
npm ci --no-audit --no-fund
echo "$lock" >node_modules/.installed-from
