#!/bin/sh
# Installs clangd 19.1.7 from Debian (bookworm) with apt-get, pinned to
# clangd-19=1:19.1.7-3~deb12u1; /usr/lib/llvm-19/bin/clangd is where the package puts it.
# Needs root (or sudo). Idempotent: an installed package of that version is kept.
set -eu
pkg=clangd-19
pkgver='1:19.1.7-3~deb12u1'
if [ "$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || true)" = "$pkgver" ] && [ -x /usr/lib/llvm-19/bin/clangd ]; then
  exit 0
fi
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$pkg=$pkgver" >/dev/null
[ -x /usr/lib/llvm-19/bin/clangd ]
