#!/usr/bin/env bash
# Installs Debian's Chromium (package chromium: /usr/bin/chromium) for the
# browser tests (internal/browser; the matrix page test in internal/report).
# Idempotent. Nothing is downloaded but Debian's package.
set -euo pipefail
if command -v chromium > /dev/null 2>&1; then
  chromium --version 2> /dev/null
  exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq chromium > /dev/null
chromium --version 2> /dev/null
