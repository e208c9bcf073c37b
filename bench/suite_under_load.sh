#!/usr/bin/env bash
# Runs the test suite (scripts/run_tests.sh: lint, types, pytest with xdist) while every core is kept busy by a
# CPU hog, and prints pass/fail and the wall time. Arguments go to pytest (e.g. `tests/agents/runs/test_ray.py -x`).
#   bench/suite_under_load.sh [pytest args...]
# HOGS=<n> sets the number of busy processes (default: one per core); stress-ng is used when installed, else a
# Python busy loop. The suite's own children are started with SIGINT ignored, as `nohup ... &` or a CI runner
# does, so the signal tests are checked that way too.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cores="$(nproc 2>/dev/null || echo 2)"
hogs="${HOGS:-$cores}"
pids=()
stop_hogs() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
}
trap stop_hogs EXIT
if command -v stress-ng >/dev/null 2>&1; then
  stress-ng --cpu "$hogs" --quiet >/dev/null 2>&1 &
  pids+=($!)
  hog="stress-ng --cpu $hogs"
else
  for _ in $(seq "$hogs"); do
    python3 -c 'while True: pass' &
    pids+=($!)
  done
  hog="$hogs Python busy loop(s)"
fi
echo "suite under load: $hog on $cores core(s); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
started=$(date +%s)
# `trap '' INT` in a subshell: the suite and every child it starts inherit SIGINT ignored
( trap '' INT; exec "$ROOT/scripts/run_tests.sh" "$@" ) 
code=$?
wall=$(( $(date +%s) - started ))
load="$(cut -d' ' -f1-3 /proc/loadavg)"
stop_hogs
trap - EXIT
verdict=$([[ $code -eq 0 ]] && echo PASS || echo "FAIL (exit $code)")
printf 'suite under load: %s in %dm%02ds wall (load average at the end: %s)\n' "$verdict" $((wall / 60)) $((wall % 60)) "$load"
exit $code
