"""What each run cost, from the usage its record holds (the ledger of every invocation that worked on it): per
role calls, billed tokens and USD, and per item. USD is there only when every role with billed tokens had a
price (`[llm.prices]`, or the role's own price settings); otherwise the cost reads "n/a (no prices)"."""

from __future__ import annotations

from typing import Any

NO_PRICES = "n/a (no prices)"


def run_cost(usage: dict[str, Any] | None, n_items: int) -> dict[str, Any]:
    """{by_role: {role: {calls, billed_tokens_in, billed_tokens_out, cost_usd}}, cost_usd, tokens, tokens_per_item,
    cost_per_item_usd}; cost_usd is None when a role with billed tokens has no price."""
    usage = usage or {}
    by_role: dict[str, dict[str, Any]] = {}
    priced = True
    for role, counters in sorted(usage.items()):
        if role == "total" or not isinstance(counters, dict):
            continue
        billed = int(counters.get("billed_tokens_in", 0)) + int(counters.get("billed_tokens_out", 0))
        cost = counters.get("cost_usd")
        if billed and cost is None:
            priced = False
        by_role[role] = {
            "calls": int(counters.get("calls", 0)),
            "cache_hits": int(counters.get("cache_hits", 0)),
            "billed_tokens_in": int(counters.get("billed_tokens_in", 0)),
            "billed_tokens_out": int(counters.get("billed_tokens_out", 0)),
            "cost_usd": cost,
        }
    tokens = sum(r["billed_tokens_in"] + r["billed_tokens_out"] for r in by_role.values())
    total = sum(float(r["cost_usd"] or 0.0) for r in by_role.values()) if priced else None
    return {
        "by_role": by_role,
        "cost_usd": total,
        "tokens": tokens,
        "tokens_per_item": tokens / n_items if n_items else None,
        "cost_per_item_usd": (total / n_items) if total is not None and n_items else None,
    }


def usd_text(value: float | None) -> str:
    return NO_PRICES if value is None else f"${value:,.4f}"


def cost_rows(runs: list[dict[str, Any]]) -> list[tuple[str, str, str, str, str, str]]:
    """(method, role, calls, billed tokens in+out, cost, per item) rows, a `total` row per run."""
    rows: list[tuple[str, str, str, str, str, str]] = []
    for run in runs:
        cost = run.get("cost") or {}
        for role, r in (cost.get("by_role") or {}).items():
            rows.append((
                run["label"], role, f"{r['calls']} ({r['cache_hits']} cached)",
                f"{r['billed_tokens_in']:,}+{r['billed_tokens_out']:,}",
                usd_text(r["cost_usd"]) if r["billed_tokens_in"] + r["billed_tokens_out"] else "$0",
                "",
            ))
        per_item = cost.get("tokens_per_item")
        rows.append((
            run["label"], "total", "", f"{cost.get('tokens', 0):,}", usd_text(cost.get("cost_usd")),
            ("-" if per_item is None else f"{per_item:,.0f} tokens")
            + ("" if cost.get("cost_per_item_usd") is None else f", {usd_text(cost['cost_per_item_usd'])}"),
        ))
    return rows
