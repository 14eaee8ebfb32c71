#!/bin/sh
# Builds the suite's own DAP reference adapter (suites/dap/reference, Go
# standard library only) into
# ${CONFORM_CACHE:-$HOME/.cache/conform}/dap-reference/conform-dap-reference.
# Idempotent: go build rebuilds only what changed.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
mkdir -p "$cache/dap-reference"
cd "$here/../.."
go build -o "$cache/dap-reference/conform-dap-reference" ./suites/dap/reference
