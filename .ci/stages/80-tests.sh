#!/usr/bin/env bash
set -euo pipefail
echo "== tests (README test command)"
go test ./...
