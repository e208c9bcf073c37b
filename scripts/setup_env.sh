#!/usr/bin/env bash
# Creates (once per dependency set) the Python environment outside the checkout and prints its path.
# The environment is keyed by the lock file and the Python version, so fresh clones reuse it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CB_HOME="${COLABENCH_HOME:-$HOME/.cache/colabench}"
PY="${COLABENCH_PYTHON:-python3}"
UV_VERSION="0.13.9"
pyver="$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
key="$(cat "$ROOT/requirements.lock" | sha256sum | cut -c1-16)-py$pyver"
VENV="$CB_HOME/venvs/$key"
if [[ -f "$VENV/.complete" ]]; then
  echo "$VENV"
  exit 0
fi
mkdir -p "$CB_HOME/venvs"
TOOLS="$CB_HOME/tools"
if [[ ! -x "$TOOLS/bin/uv" ]] || [[ "$("$TOOLS/bin/uv" --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ]]; then
  echo "colabench: installing the uv installer into $TOOLS" >&2
  "$PY" -m venv "$TOOLS" >&2
  "$TOOLS/bin/pip" install -q "uv==$UV_VERSION" >&2
fi
echo "colabench: creating the Python environment $VENV (first time per dependency set; installs torch)" >&2
# an interrupted earlier attempt leaves no .complete marker: start it again from scratch
rm -rf "$VENV"
"$TOOLS/bin/uv" venv -q -p "$PY" "$VENV" >&2
VIRTUAL_ENV="$VENV" "$TOOLS/bin/uv" pip sync -q --require-hashes "$ROOT/requirements.lock" >&2
touch "$VENV/.complete"
echo "$VENV"
