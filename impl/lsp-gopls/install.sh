#!/bin/sh
# Installs gopls v0.23.0 (golang.org/x/tools/gopls, by exact version from
# the Go module proxy; its own go.sum pins its dependencies) into
# ${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}/lsp-gopls-0.23.0/gopls,
# built by this machine's Go (v0.24.0 needs a newer Go than 1.26). The
# module's hash (go.sum's h1:, as the proxy's checksum database has it) is
# checked against the one pinned here. Idempotent.
set -eu
ver=0.23.0
sum='h1:Dn6mf9WXu9iLnTftDDMb9wV0c6Se7PjzEMqP0LEe08Y='
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
out="$cache/lsp-gopls-$ver"
# have: the module line of the binary's build info ("mod PATH VERSION SUM").
have() { go version -m "$out/gopls" 2>/dev/null | awk '$1 == "mod" && $2 == "golang.org/x/tools/gopls" {print $3, $4}'; }
if [ -x "$out/gopls" ] && [ "$(have)" = "v$ver $sum" ]; then
  exit 0
fi
mkdir -p "$out"
cd "$out"
GOBIN="$out" go install "golang.org/x/tools/gopls@v$ver"
if [ "$(have)" != "v$ver $sum" ]; then
  echo "install.sh: gopls build info says '$(have)', want 'v$ver $sum'" >&2
  exit 1
fi
