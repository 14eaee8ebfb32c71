#!/usr/bin/env bash
set -euo pipefail
echo "== frozen v1: the working schema changed only additively since published/control.v1.json"
# Readers: the working copy must accept every message the published one did
# (anything BREAKING here is not additive: exit 1 fails the stage).
"$conform" compat published/control.v1.json schemas/control.v1.json --direction reader
# Writers: the widenings, i.e. the additive changes (informational here).
"$conform" compat published/control.v1.json schemas/control.v1.json --direction writer || true
# Both directions, and every additive change needs its dated entry in
# COMPATIBILITY.md's additive changelog.
"$conform" frozen
# The gate itself: a deliberately breaking edit of the v1 schema fails it,
# an additive one passes only with its changelog entry.
go test -count=1 -run 'TestGate|TestEntries' ./internal/frozen
