"""Cells the Markdown and HTML reports share, so both say the same: the errors of a run, and the items a
comparison leaves out."""

from __future__ import annotations

from typing import Any


def errors_cell(metrics: dict[str, Any]) -> str:
    """Every role's errors of a run: attempts in error (answerer, state, memory) plus answered attempts a
    judge's endpoint error left unjudged, the judge share named."""
    judge = int(metrics.get("n_unjudged_by_errors") or 0)
    total = int(metrics["n_errors"]) + judge
    return f"{total} ({judge} judge)" if judge else str(total)


def excluded_text(excluded: list[dict[str, Any]]) -> str:
    """The items a comparison leaves out, each side's status in the heading's order (method - baseline)."""
    if not excluded:
        return ""
    listed = ", ".join(f"{e['item_id']} ({e['method']} / {e['baseline']})" for e in excluded)
    return f"; left out, not answered by both: {listed}"
