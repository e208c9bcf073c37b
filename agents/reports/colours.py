"""One colour per method in every chart of a report (bars, the accuracy-tokens scatter, the paired gains): a
method's colour follows its place in the method registry, so MemKB has the same colour in every chart and in
every report; two runs of one method in one report get the next free colours."""

from __future__ import annotations

from typing import Any

# Eleven well-separated colours, one per registered method (more methods reuse them in order).
METHOD_PALETTE = (
    "#4c72b0",  # blue
    "#dd8452",  # orange
    "#55a868",  # green
    "#c44e52",  # red
    "#8172b3",  # purple
    "#937860",  # brown
    "#da8bc3",  # pink
    "#8c8c8c",  # grey
    "#ccb974",  # olive
    "#64b5cd",  # cyan
    "#2f4b7c",  # navy
)


def method_colours(runs: list[dict[str, Any]]) -> dict[str, str]:
    """run_id -> colour for the runs of a report (each a dict with `run_id` and `method`). The first run of each
    method gets its method's own colour whatever else the report holds; further runs of a method (and methods
    outside the registry) then take colours no method of this report owns, so a repeat never takes another
    method's colour."""
    from agents.methods.registry import METHODS

    order = list(METHODS)
    out: dict[str, str] = {}
    used: set[str] = set()
    later: list[dict[str, Any]] = []
    for run in runs:  # pass 1: each registered method's first run, its own colour
        method = str(run.get("method") or "")
        if method in order:
            colour = METHOD_PALETTE[order.index(method) % len(METHOD_PALETTE)]
            if colour not in used:
                used.add(colour)
                out[str(run["run_id"])] = colour
                continue
        later.append(run)
    for position, run in enumerate(later):  # pass 2: repeats and unknown methods, the next free colour
        fallback = METHOD_PALETTE[(len(order) + position) % len(METHOD_PALETTE)]
        colour = next((c for c in METHOD_PALETTE if c not in used), fallback)
        used.add(colour)
        out[str(run["run_id"])] = colour
    return out
