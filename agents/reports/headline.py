"""The report's lead: the paper's main-table pair (MemKB vs Mem0 + Hybrid) as a paired gain with its interval,
and No Memory + Hybrid as the floor, in plain sentences every writer (HTML, Markdown, CLI) prints first."""

from __future__ import annotations

from typing import Any

from agents.metrics.comparison import interval_text


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.2f}%"


def headline_lines(data: dict[str, Any]) -> list[str]:
    """Nothing when the report holds no headline pair."""
    head = data.get("headline")
    if not head:
        return []
    gain = (head.get("accuracy_gain") or {}).get("gain") or {}
    turns = (head.get("turns_gain") or {}).get("gain") or {}
    lines = [
        f"{head['method_label']} {_pct(head['method_accuracy'])} vs {head['baseline_label']} "
        f"{_pct(head['baseline_accuracy'])}: paired accuracy gain {interval_text(gain)} on "
        f"{head['n_common_items']} items answered by both; turns {interval_text(turns, 1.0, '')}."
    ]
    for floor in head.get("floor") or []:
        lines.append(f"Floor: {floor['label']} {_pct(floor['accuracy'])} (`{floor['run_id']}`).")
    return lines
