#!/usr/bin/env bash
# Builds the documentation site (mkdocs.yml, docs/) with `mkdocs build --strict`: a broken link or anchor, or a
# page missing from nav, fails the build (exit 1) and its warnings are printed. Usage:
#   scripts/build_docs.sh [SITE_DIR] [CONFIG]   # SITE_DIR defaults to site/ (git-ignored), CONFIG to mkdocs.yml
# Not `mkdocs -q`: it hides warnings from the strict count, so a broken link would pass.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DOCS_VENV="$("$ROOT/scripts/setup_docs_env.sh")" || exit 1
SITE_DIR="${1:-$ROOT/site}"
CONFIG="${2:-$ROOT/mkdocs.yml}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
NO_MKDOCS_2_WARNING=1 "$DOCS_VENV/bin/mkdocs" build --strict --clean -f "$CONFIG" -d "$SITE_DIR" >"$log" 2>&1
code=$?
if [[ $code -ne 0 ]]; then
  grep -v '^INFO' "$log" >&2
  echo "docs: mkdocs build --strict failed ($CONFIG)" >&2
  exit 1
fi
echo "docs: site built in $SITE_DIR"
