#!/usr/bin/env bash
# Creates (once per lock pair) the Ray environment: the project venv of scripts/setup_env.sh plus the optional
# extra of requirements-ray.lock (Ray for `run --executor ray`; hash-checked, no dependency resolution), and prints
# its path. `make test` runs the suite in it; `make run` never needs it.
# Layering: the Ray venv's site-packages holds a .pth line naming the project venv's, so the project's packages
# are shared, never copied or upgraded (Ray's own dependencies are all pinned in requirements.lock).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CB_HOME="${COLABENCH_HOME:-$HOME/.cache/colabench}"
PROJECT_VENV="$("$ROOT/scripts/setup_env.sh")"
UV="$CB_HOME/tools/bin/uv"
key="$(cat "$ROOT/requirements.lock" "$ROOT/requirements-ray.lock" | sha256sum | cut -c1-16)"
VENV="$CB_HOME/venvs/ray-$key"
if [[ -f "$VENV/.complete" ]]; then
  echo "$VENV"
  exit 0
fi
echo "colabench: creating the Ray environment $VENV (layered on $PROJECT_VENV)" >&2
rm -rf "$VENV"
"$UV" venv -q -p "$PROJECT_VENV/bin/python" "$VENV" >&2
site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
"$PROJECT_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' >"$site/colabench_project.pth"
VIRTUAL_ENV="$VENV" "$UV" pip install -q --no-deps --require-hashes -r "$ROOT/requirements-ray.lock" >&2
# every dependency Ray declares must be importable (they come from the project venv): a missing one fails here
"$VENV/bin/python" -c 'import ray, ray.util.queue; import click, filelock, jsonschema, msgpack, packaging, google.protobuf, yaml, requests' >&2
touch "$VENV/.complete"
echo "$VENV"
