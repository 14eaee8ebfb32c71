#!/bin/sh
# Installs python-lsp-server 1.15.0 (PyPI python-lsp-server 1.15.0, pinned with its dependencies in
# requirements.txt) into a virtual environment under
# ${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}/lsp-pylsp-1.15.0.
# Idempotent: an environment that already holds exactly that set is kept.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
ver=1.15.0
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
venv="$cache/lsp-pylsp-$ver"
want="$(sort -f "$here/requirements.txt")"
if [ -x "$venv/bin/python" ] && [ "$("$venv/bin/python" -m pip freeze --disable-pip-version-check 2>/dev/null | sort -f)" = "$want" ]; then
  exit 0
fi
mkdir -p "$cache"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$here/requirements.txt"
"$venv/bin/python" -c "import importlib.metadata as m; v = m.version('python-lsp-server'); assert v == '$ver', v"
