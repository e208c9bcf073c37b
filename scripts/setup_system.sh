#!/usr/bin/env bash
# Checks the system tools the project needs and installs what it can:
#   JDK 17 and Maven (required: Neo4j runs from Maven Central artifacts), built launcher;
#   Debian's chromium (for the browser tests; they skip with a reason when it cannot be installed).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v java >/dev/null || { echo "colabench: java (JDK 17) is required to run Neo4j" >&2; exit 1; }
command -v mvn >/dev/null || { echo "colabench: Maven (mvn) is required once to fetch Neo4j" >&2; exit 1; }
if [[ "${1:-}" == "--with-browser" && ! -x /usr/bin/chromium ]]; then
  if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null; then
    echo "colabench: installing Debian's chromium for the browser tests" >&2
    if ! { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
      echo "colabench: could not install chromium; the browser tests will be skipped" >&2
    fi
  else
    echo "colabench: chromium is not installed (apt-get install chromium); the browser tests will be skipped" >&2
  fi
fi
VENV="$("$ROOT/scripts/setup_env.sh")"
PYTHONPATH="$ROOT" "$VENV/bin/python" -c "from graph.server import build_launcher; build_launcher()"
