#!/usr/bin/env bash
# Creates (once per lock) the docs venv: MkDocs and the Material theme from requirements-docs.lock (hash-checked,
# no dependency resolution), and prints its path. A venv of its own, not layered on the project's: the site build
# needs none of the project's packages, and it stays small (about 30 pure-Python wheels, seconds to install).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CB_HOME="${COLABENCH_HOME:-$HOME/.cache/colabench}"
PROJECT_VENV="$("$ROOT/scripts/setup_env.sh")"   # also installs uv into $CB_HOME/tools on a fresh machine
UV="$CB_HOME/tools/bin/uv"
key="$(sha256sum "$ROOT/requirements-docs.lock" | cut -c1-16)"
VENV="$CB_HOME/venvs/docs-$key"
if [[ -f "$VENV/.complete" ]]; then
  echo "$VENV"
  exit 0
fi
echo "colabench: creating the docs environment $VENV" >&2
rm -rf "$VENV"
"$UV" venv -q -p "$PROJECT_VENV/bin/python" "$VENV" >&2
VIRTUAL_ENV="$VENV" "$UV" pip sync -q --require-hashes "$ROOT/requirements-docs.lock" >&2
"$VENV/bin/python" -c 'import mkdocs, material' >&2
touch "$VENV/.complete"
echo "$VENV"
