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
    """run_id -> colour for the runs of a report (each a dict with `run_id` and `method`)."""
    from agents.methods.registry import METHODS

    order = list(METHODS)
    out: dict[str, str] = {}
    used: set[str] = set()
    for position, run in enumerate(runs):
        method = str(run.get("method") or "")
        index = order.index(method) if method in order else len(order) + position
        colour = METHOD_PALETTE[index % len(METHOD_PALETTE)]
        if colour in used:  # a second run of the same method (or a palette wrap): the next free colour
            colour = next((c for c in METHOD_PALETTE if c not in used), colour)
        used.add(colour)
        out[str(run["run_id"])] = colour
    return out
