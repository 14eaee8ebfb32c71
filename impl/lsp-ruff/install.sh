#!/bin/sh
# Installs ruff 0.17.5, ruff server (PyPI ruff 0.17.5, pinned with its dependencies in
# requirements.txt) into a virtual environment under
# ${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}/lsp-ruff-0.17.5.
# Idempotent: an environment that already holds exactly that set is kept.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
ver=0.17.5
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
venv="$cache/lsp-ruff-$ver"
want="$(sort -f "$here/requirements.txt")"
if [ -x "$venv/bin/python" ] && [ "$("$venv/bin/python" -m pip freeze --disable-pip-version-check 2>/dev/null | sort -f)" = "$want" ]; then
  exit 0
fi
mkdir -p "$cache"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$here/requirements.txt"
"$venv/bin/python" -c "import importlib.metadata as m; v = m.version('ruff'); assert v == '$ver', v"
