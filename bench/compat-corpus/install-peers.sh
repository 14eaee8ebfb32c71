#!/usr/bin/env bash
# Installs the two peers the corpus bench compares conform compat with, pinned, into
# ${CONFORM_CACHE:-$HOME/.cache/conform}/compat-peers (never into the tree); a second run reuses them.
#   jsoncompat 0.5.0    (PyPI; needs Python >= 3.12)  own venv: venv-jsoncompat
#   jsonsubschema 0.0.8 (PyPI)                          own venv: venv-jsonsubschema
# Each peer gets its own venv so their dependency pins cannot clash.
set -euo pipefail
cache="${CONFORM_CACHE:-$HOME/.cache/conform}/compat-peers"
mkdir -p "$cache"
# A python3.12+ on PATH, else one that pyenv has installed (PYENV_VERSION selects it for one command).
py312=""
for p in python3.13 python3.12 "env PYENV_VERSION=3.13 python3.13" "env PYENV_VERSION=3.12 python3.12"; do
  if $p -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
    py312="$p"; break
  fi
done
if [ -z "$py312" ] && command -v pyenv >/dev/null; then
  for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.1[2-9]' | sort -rV); do
    if PYENV_VERSION="$v" python -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
      py312="env PYENV_VERSION=$v python"; break
    fi
  done
fi
if [ -z "$py312" ]; then
  echo "install-peers: jsoncompat needs Python >= 3.12 (python3.12 or python3.13 on PATH)" >&2
  exit 2
fi
install() { # venv-dir python package==version
  local dir="$cache/$1" py="$2" pkg="$3"
  if [ -x "$dir/bin/python" ] && "$dir/bin/python" -m pip show "${pkg%%==*}" 2>/dev/null | grep -q "^Version: ${pkg##*==}$"; then
    echo "install-peers: $pkg already in $dir"
    return
  fi
  rm -rf "$dir"
  $py -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$pkg"
  echo "install-peers: installed $pkg into $dir"
}
install venv-jsoncompat "$py312" jsoncompat==0.5.0
install venv-jsonsubschema "$py312" jsonsubschema==0.0.8
