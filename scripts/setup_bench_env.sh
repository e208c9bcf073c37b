#!/usr/bin/env bash
# Creates (once per lock pair) the benchmark venv: the project venv of scripts/setup_env.sh plus the
# benchmark-only extras of requirements-bench.lock (hash-checked, no dependency resolution), and prints its path.
# Layering: the bench venv's site-packages holds a .pth line naming the project venv's, so the project's
# packages are shared, never copied or upgraded.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CB_HOME="${COLABENCH_HOME:-$HOME/.cache/colabench}"
PROJECT_VENV="$("$ROOT/scripts/setup_env.sh")"
UV="$CB_HOME/tools/bin/uv"
key="$(cat "$ROOT/requirements.lock" "$ROOT/requirements-bench.lock" | sha256sum | cut -c1-16)"
VENV="$CB_HOME/venvs/bench-$key"
if [[ -f "$VENV/.complete" ]]; then
  echo "$VENV"
  exit 0
fi
echo "colabench: creating the benchmark environment $VENV (layered on $PROJECT_VENV)" >&2
rm -rf "$VENV"
"$UV" venv -q -p "$PROJECT_VENV/bin/python" "$VENV" >&2
site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
"$PROJECT_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' >"$site/colabench_project.pth"
VIRTUAL_ENV="$VENV" "$UV" pip install -q --no-deps --require-hashes -r "$ROOT/requirements-bench.lock" >&2
"$VENV/bin/python" -c 'import neo4j_graphrag.retrievers' >&2
touch "$VENV/.complete"
echo "$VENV"
