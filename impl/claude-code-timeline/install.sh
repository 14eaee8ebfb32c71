#!/usr/bin/env bash
# Installs one pinned release of the Claude Code CLI from npm into the cache
# (idempotent) and prints the path of its binary on stdout.
#   impl/claude-code-timeline/install.sh 2.1.309
# Cache: $CONFORM_CACHE, else $XDG_CACHE_HOME/conform, else $HOME/.cache/conform;
# the release goes to <cache>/claude-code-<version> (the layout of
# impl/claude-code/install.sh, so 2.1.332 is shared). About 400 MB each.
set -euo pipefail
VERSION="${1:?usage: install.sh VERSION (see releases.txt)}"
case "$VERSION" in
  *[!0-9.]* | "") echo "install.sh: bad version $VERSION" >&2; exit 2 ;;
esac
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
dir="$cache/claude-code-$VERSION"
exe="$dir/node_modules/@anthropic-ai/claude-code/bin/claude.exe"

ok() { [ -x "$exe" ] && "$exe" --version 2>/dev/null | grep -q "^$VERSION "; }

if ok; then
  echo "$exe"
  exit 0
fi
mkdir -p "$dir"
cd "$dir"
printf '{"private":true,"dependencies":{"@anthropic-ai/claude-code":"%s"}}\n' "$VERSION" > package.json
npm install --no-audit --no-fund --loglevel=error >&2
if ! ok; then
  # npm may skip the package's postinstall, which places the platform binary.
  (cd node_modules/@anthropic-ai/claude-code && node install.cjs) >&2 || true
fi
if ! ok; then
  echo "install.sh: $exe does not report version $VERSION" >&2
  exit 1
fi
echo "$exe"
