#!/usr/bin/env bash
# Toolchain versions, vet, the two binaries every later stage uses, and the
# suite's own consistency.
set -euo pipefail
echo "== toolchain"
go version
node --version
npm --version
python3 --version

echo "== build"
go mod download
go vet ./...
go build -o "$conform" ./cmd/conform
go build -o "$reference_bin" ./cmd/conform-reference

echo "== suite is consistent (schemas, vectors, golden, coverage)"
"$conform" validate
