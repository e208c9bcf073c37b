#!/usr/bin/env bash
# Creates (once per lock) the MemOS environment and prints its path: MemOS (`MemoryOS` 2.0.33, tree memory on
# Neo4j) and what the MemOS adapter server needs, from requirements-memos.lock (hash-checked, no resolution).
# A venv of its own, not layered on the project's: MemOS pins transformers < 5, openai < 2 and fastapi < 0.116,
# the project transformers 5.24, openai 3.57, fastapi 0.165. It runs agents/memory/adapter_server/memos_server.py
# (docs/memory-adapter.md); `make test` never needs it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CB_HOME="${COLABENCH_HOME:-$HOME/.cache/colabench}"
"$ROOT/scripts/setup_env.sh" >/dev/null  # installs the pinned uv and the Python it uses
UV="$CB_HOME/tools/bin/uv"
PYTHON="$("$ROOT/scripts/setup_env.sh")/bin/python"
key="$(sha256sum "$ROOT/requirements-memos.lock" | cut -c1-16)"
VENV="$CB_HOME/venvs/memos-$key"
if [[ -f "$VENV/.complete" ]]; then
  echo "$VENV"
  exit 0
fi
echo "colabench: creating the MemOS environment $VENV" >&2
rm -rf "$VENV"
"$UV" venv -q -p "$PYTHON" "$VENV" >&2
VIRTUAL_ENV="$VENV" "$UV" pip install -q --require-hashes -r "$ROOT/requirements-memos.lock" >&2
"$VENV/bin/python" -c 'import memos, memos.memories.textual.tree, memos.mem_reader.simple_struct, chonkie, fastapi, uvicorn' >&2
touch "$VENV/.complete"
echo "$VENV"
