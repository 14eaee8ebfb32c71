#!/bin/sh
# Installs @anthropic-ai/claude-agent-sdk (pinned in package.json and
# package-lock.json) into impl/agent-sdk-ts/node_modules. Idempotent.
# Optional dependencies (the SDK's bundled Claude Code binaries) are
# skipped: the driver always starts the agent double it is given.
set -eu
cd "$(dirname "$0")"
npm ci --omit=optional --no-audit --no-fund --loglevel=error
