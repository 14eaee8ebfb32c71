#!/usr/bin/env bash
# Release archives (issue 14 item 5): scripts/dist.sh builds linux/amd64,
# linux/arm64, darwin/amd64, darwin/arm64 and windows/amd64 with SHA256SUMS;
# the Linux archive for this machine runs.
set -euo pipefail
scripts/dist.sh ci
(cd dist && sha256sum -c SHA256SUMS)
x="$CI_TMP/dist-x"
mkdir -p "$x"
tar -C "$x" -xzf dist/conform_ci_linux_amd64.tar.gz
"$x/conform_ci_linux_amd64/conform" version
"$x/conform_ci_linux_amd64/conform" run --filter 'interrupt-*' -- "$x/conform_ci_linux_amd64/conform-reference" | tail -1
rm -rf dist
