#!/usr/bin/env bash
# Installs Debian's Ruby (package ruby: /usr/bin/ruby) for the containment
# test of RUBYOPT (cmd/conform TestSuiteRunsNoCode), which CI runs with
# CONFORM_REQUIRE_TOOLS=1 and so may not skip. Idempotent. Nothing is
# downloaded but Debian's package.
set -euo pipefail
if command -v ruby > /dev/null 2>&1; then
  ruby --version
  exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq ruby > /dev/null
ruby --version
