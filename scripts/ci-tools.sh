#!/bin/sh
# Installs what the CI checks of conform's own output need, and prints the
# path of the Python that has the Python half:
#   - xmllint (Debian's libxml2-utils): validates JUnit output against the
#     junit-10 and junit-4 XSDs (internal/report TestJUnitSchemas);
#   - junitparser and PyYAML (pinned in scripts/ci-requirements.txt) in a
#     virtual environment under ${CONFORM_CACHE:-~/.cache/conform}/ci-tools:
#     scripts/junit_check.py reads JUnit as a CI consumer does, and
#     scripts/test-action.py parses action.yml.
# Idempotent: what is already installed is kept.
# Usage: py="$(scripts/ci-tools.sh)"
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v xmllint >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "ci-tools.sh: xmllint is missing; install Debian's libxml2-utils (needs root)" >&2
    exit 1
  fi
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-utils >&2
fi
cache="${CONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conform}"
venv="$cache/ci-tools"
want="$(sort -f "$here/ci-requirements.txt")"
if ! { [ -x "$venv/bin/python" ] && [ "$("$venv/bin/python" -m pip freeze --disable-pip-version-check 2>/dev/null | sort -f)" = "$want" ]; }; then
  mkdir -p "$cache"
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$here/ci-requirements.txt" >&2
fi
echo "$venv/bin/python"
