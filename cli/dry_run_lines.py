"""How `--dry-run` prints its estimate: one table of the roles, then the basis of each figure and the cost."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from cli.context import console


def _range(low: int, high: int | None) -> str:
    if high is None:
        return f"{low:,} or more"
    return f"{low:,}" if high == low else f"{low:,}-{high:,}"


def usd(value: float | None) -> str:
    return "?" if value is None else f"${value:,.4f}"


def print_dry_run(estimate: Any) -> None:
    """The dry run of `run` (agents/runs/dry_run.py DryRun)."""
    data = estimate.as_dict()
    console.print(
        f"[bold]dry run[/]: nothing sent to any endpoint, nothing written to the graph. Batch {data['batch_id']}: "
        f"{len(data['runs'])} run(s) x {data['items']} item(s) of {data['dataset']} = {data['attempts']} attempt(s); "
        f"{data['to_answer']} to answer, {data['to_judge']} to judge",
        soft_wrap=True,
    )
    print_roles(data["roles"], data["totals"])
    for note in data["notes"]:
        console.print(f"note: {note}", highlight=False, soft_wrap=True)


def print_roles(roles: list[dict[str, Any]], totals: dict[str, Any]) -> None:
    """The per-role table, each role's basis, and the cost line (or what to set for one)."""
    table = Table(title="expected LLM calls per role (estimates; see the basis below)")
    for column in ("role", "model", "calls", "input tokens", "input at most calls (>=)", "output tokens (<=)", "cost"):
        table.add_column(column, justify="left" if column in ("role", "model") else "right")
    for r in roles:
        cost = "n/a (no prices)"
        if r["cost_usd_low"] is not None:
            high = r["cost_usd_high"]
            cost = usd(r["cost_usd_low"]) + ("" if high == r["cost_usd_low"] else f"-{usd(high)}")
        table.add_row(
            r["role"] + ("" if r["configured"] else " (unconfigured)"),
            str(r["model"] or "-"),
            _range(r["calls_min"], r["calls_max"]),
            f"{r['tokens_in']:,}",
            "?" if r["tokens_in_at_max_lower_bound"] is None else f"{r['tokens_in_at_max_lower_bound']:,}",
            "?" if r["tokens_out_max"] is None else f"{r['tokens_out_max']:,}",
            cost,
        )
    console.print(table)
    for r in roles:
        for line in r["basis"]:
            console.print(f"  {r['role']}: {line}", highlight=False, soft_wrap=True)
    if totals["unpriced"]:
        console.print(
            f"cost: set \\[llm.prices] in colabench.toml for {', '.join(totals['unpriced'])} (USD per 1M input / "
            "output tokens; none is shipped); token figures only",
            highlight=False,
            soft_wrap=True,
        )
    else:
        console.print(
            f"cost: {usd(totals['cost_usd_low'])} (the counted input at the fewest calls, no output) to "
            f"{usd(totals['cost_usd_high'])} (the input lower bound at the most calls, every reply at max_tokens); "
            "prices from \\[llm.prices]",
            highlight=False,
            soft_wrap=True,
        )
