#!/usr/bin/env bash
# Installs Debian's Wine and a MinGW-w64 C compiler with apt-get, makes a Wine
# prefix at $WINEPREFIX and puts in it the bcryptprimitives.dll stand-in that
# Go's Windows binaries need under Wine 8.0 (see bcryptprimitives.c).
# Prints the environment to use (WINEPREFIX, WINEDEBUG, WINEDLLOVERRIDES) as
# shell assignments. Needs root (apt-get) unless both are installed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${WINEPREFIX:?set WINEPREFIX to the prefix directory to make}"

if ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  start=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq wine wine64 gcc-mingw-w64-x86-64-win32 >&2
  echo "wine and mingw-w64 installed in $((SECONDS - start)) s" >&2
fi

export WINEDEBUG=-all
mkdir -p "$WINEPREFIX"
start=$SECONDS
wineboot --init >/dev/null 2>&1 || true
wineserver -w || true
echo "wine prefix made in $((SECONDS - start)) s" >&2
sys32="$WINEPREFIX/drive_c/windows/system32"
[ -d "$sys32" ] || { echo "wineboot made no $sys32" >&2; exit 1; }
x86_64-w64-mingw32-gcc -O2 -shared -o "$sys32/bcryptprimitives.dll" \
  "$here/bcryptprimitives.c" "$here/bcryptprimitives.def" -ladvapi32

echo "export WINEPREFIX='$WINEPREFIX' WINEDEBUG=-all WINEDLLOVERRIDES='bcryptprimitives=n'"
