#!/usr/bin/env bash
# Checks the system tools the project needs and installs what it can:
#   JDK 17 and Maven (required: Neo4j runs from Maven Central artifacts), built launcher;
#   with --with-browser, Debian's chromium for the browser tests (announced before it is installed; they skip
#   with a reason when it is absent).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v java >/dev/null || { echo "colabench: java (JDK 17) is required to run Neo4j" >&2; exit 1; }
command -v mvn >/dev/null || { echo "colabench: Maven (mvn) is required once to fetch Neo4j" >&2; exit 1; }
# --with-browser (`make test`): the browser tests (tests/api/test_browser.py, tests/api/test_adjudication_browser.py)
# drive Debian's chromium package through Playwright. Installed only when missing, as root with apt-get, and said out
# loud first (what, why, how to skip); COLABENCH_SKIP_BROWSER_INSTALL=1 skips it (those tests then skip).
if [[ "${1:-}" == "--with-browser" && ! -x /usr/bin/chromium ]]; then
  why="the browser tests (tests/api/test_browser.py, tests/api/test_adjudication_browser.py) need it; without it"
  why+=" they skip"
  if [[ "${COLABENCH_SKIP_BROWSER_INSTALL:-}" == "1" ]]; then
    echo "colabench: chromium is not installed and COLABENCH_SKIP_BROWSER_INSTALL=1: not installing it; $why" >&2
  elif [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null; then
    echo "colabench: installing Debian's package 'chromium' with apt-get (apt-get update, then" >&2
    echo "colabench:   apt-get install -y chromium; a few hundred MB with its dependencies): $why." >&2
    echo "colabench:   To skip it: COLABENCH_SKIP_BROWSER_INSTALL=1 make test" >&2
    if DEBIAN_FRONTEND=noninteractive apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; then
      echo "colabench: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)" >&2
    else
      echo "colabench: could not install chromium; the browser tests will be skipped" >&2
    fi
  else
    echo "colabench: chromium is not installed (as root: apt-get install chromium); $why" >&2
  fi
fi
VENV="$("$ROOT/scripts/setup_env.sh")"
PYTHONPATH="$ROOT" "$VENV/bin/python" -c "from graph.server import build_launcher; build_launcher()"
