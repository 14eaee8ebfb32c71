#!/bin/sh
# Installs the MCP Python SDK (PyPI mcp 2.3.0, pinned with its dependencies)
# for this client: the same virtual environment impl/mcp-python's server
# uses, made by its install.sh from its requirements.txt, under
# ${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}/mcp-python-2.3.0.
# Idempotent.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
"$here/../mcp-python/install.sh"
