#!/usr/bin/env bash
# Installs the Claude Code CLI 2.1.332 from npm into a cache outside the tree
# (idempotent) and prints the path of its binary on stdout: the release this
# profile certifies, installed as every release of the timeline is
# (impl/claude-code-timeline/install.sh; cache: $CONFORM_CACHE, else
# $XDG_CACHE_HOME/conform, else $HOME/.cache/conform).
set -euo pipefail
exec "$(dirname "$0")/../claude-code-timeline/install.sh" 2.1.332
