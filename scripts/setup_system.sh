#!/usr/bin/env bash
# Checks the system tools the project needs (JDK 17 and Maven for Neo4j) and builds the Neo4j launcher.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v java >/dev/null || { echo "colabench: java (JDK 17) is required to run Neo4j" >&2; exit 1; }
command -v mvn >/dev/null || { echo "colabench: Maven (mvn) is required once to fetch Neo4j" >&2; exit 1; }
VENV="$("$ROOT/scripts/setup_env.sh")"
PYTHONPATH="$ROOT" "$VENV/bin/python" -c "from graph.server import build_launcher; build_launcher()"
