#!/bin/sh
# Builds the release archives of conform into dist/ (git-ignored), from one
# command:
#
#   scripts/dist.sh [VERSION]
#
# VERSION names the archives (default: git describe --tags --always --dirty,
# or "dev" outside a git checkout). For each platform it builds conform and
# conform-reference (CGO off, -trimpath, VCS-stamped when built in a git
# clone: `conform version` then prints the revision; Go cannot stamp from a
# linked git worktree), and packs them with README.md, CHANGELOG.md and
# COMPATIBILITY.md into
#
#   dist/conform_VERSION_OS_ARCH.tar.gz   (linux, darwin)
#   dist/conform_VERSION_windows_amd64.zip
#
# then writes dist/SHA256SUMS (sha256sum format: check with
# `cd dist && sha256sum -c SHA256SUMS`). Archives are reproducible for a
# given commit and Go version: entries sorted, owner 0, modification time
# the commit's (SOURCE_DATE_EPOCH when set).
#
# CONFORM_DIST_PLATFORMS (space-separated GOOS/GOARCH) overrides the
# platforms: linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64.
set -eu
cd "$(dirname "$0")/.."
platforms="${CONFORM_DIST_PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64}"
version="${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
case "$version" in
  *[!A-Za-z0-9._+-]*|'') echo "dist.sh: version '$version' may hold only letters, digits and . _ + -" >&2; exit 2 ;;
esac
epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
for tool in tar gzip zip sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || { echo "dist.sh: $tool is required" >&2; exit 2; }
done

rm -rf dist
mkdir -p dist/.stage
for p in $platforms; do
  goos="${p%/*}"
  goarch="${p#*/}"
  name="conform_${version}_${goos}_${goarch}"
  stage="dist/.stage/$name"
  mkdir -p "$stage"
  ext=""
  [ "$goos" = windows ] && ext=.exe
  for cmd in conform conform-reference; do
    CGO_ENABLED=0 GOOS="$goos" GOARCH="$goarch" \
      go build -trimpath -buildvcs=true -ldflags="-s -w" -o "$stage/$cmd$ext" "./cmd/$cmd"
  done
  cp README.md CHANGELOG.md COMPATIBILITY.md "$stage/"
  find "$stage" -exec touch -h -d "@$epoch" {} +
  if [ "$goos" = windows ]; then
    (cd dist/.stage && find "$name" -print | LC_ALL=C sort | zip -q -X -D "../$name.zip" -@)
    echo "dist/$name.zip"
  else
    tar -C dist/.stage --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$name" \
      | gzip -n -9 > "dist/$name.tar.gz"
    echo "dist/$name.tar.gz"
  fi
done
rm -rf dist/.stage
(cd dist && sha256sum conform_* > SHA256SUMS)
cat dist/SHA256SUMS
