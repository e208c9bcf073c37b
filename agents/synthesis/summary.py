"""The synthesis report: per stage, how many units were accepted (directly or after revision), rejected or
dropped and why; per gate, how drafts fared; LLM calls, tokens and cost per stage and per accepted item.
Read from the graph, so it covers every invocation of a resumed synthesis."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

from agents.synthesis.registry import STAGES, synthesis_stages
from graph.cypher_files import load_cypher
from graph.store import EventStore
from ingest.bundle.shape import ItemShape, ShapeTarget, compare, shape_of, shape_warnings

_COST_FIELDS = ("calls", "endpoint_requests", "cache_hits", "tokens_in", "tokens_out", "cost_usd", "seconds")


def synthesis_summary(store: EventStore, dataset: str, *, with_reasons: bool = False) -> dict[str, Any]:
    """JSON-ready figures. Rejection reasons of item drafts may quote reference answers: they are included only
    with `with_reasons` (the bundle's own report file, never the console or the API)."""
    synthesis_id = f"synth-{dataset}"
    with store.driver.session(database=store.database) as session:
        drafts = [r.data() for r in session.run(load_cypher("synthesis/draft_outcomes"), synthesis_id=synthesis_id)]
        stage_runs = [r.data() for r in session.run(load_cypher("synthesis/stage_runs"), synthesis_id=synthesis_id)]
        items = [r.data() for r in session.run(load_cypher("synthesis/items_shape"), dataset=dataset)]
        started = session.run(load_cypher("synthesis/synthesis_run"), synthesis_id=synthesis_id).single()
    registered = synthesis_stages()
    stages: dict[str, dict[str, Any]] = {}
    finals: dict[str, Counter[str]] = defaultdict(Counter)
    by_role: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    gates: dict[str, Counter[str]] = defaultdict(Counter)
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    admitted: dict[str, Counter[str]] = defaultdict(Counter)
    for d in drafts:
        stage = str(d["stage"])
        by_role[stage][str(d["role"])][str(d["outcome"])] += 1
        details = json.loads(d["details"] or "{}")
        if details.get("label"):  # the History Gate's label (stages III and augmentation)
            gates[f"{stage}:history_gate"][str(details["label"])] += 1
        if d["role"] == "verifier":
            gates[f"{stage}:final_verification"]["pass" if d["outcome"] == "accepted" else "fail"] += 1
        if stage in STAGES and d["role"] == STAGES[stage].review_role:
            gates[f"{stage}:review"][str(d["outcome"])] += 1
        if d["final"]:
            finals[stage][str(d["outcome"])] += 1
            if d["outcome"] == "accepted":
                admitted[stage]["after_revision" if int(d["revision"] or 0) > 0 else "direct"] += 1
        if d["outcome"] != "accepted" and (with_reasons or not _gold_reasons(stage)):
            for reason in d["reasons"] or []:
                reasons[stage][str(reason)[:200]] += 1
    usage: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for run in stage_runs:
        total = json.loads(run["usage"] or "{}").get("total") or {}
        for name in _COST_FIELDS:
            value = total.get(name)
            if isinstance(value, int | float):
                usage[str(run["stage"])][name] += value
    item_stages = [s.name for s in registered if s.makes_items]
    accepted_items = sum(finals[stage]["accepted"] for stage in item_stages)
    item_usage = {name: sum(usage[stage].get(name, 0.0) for stage in item_stages) for name in _COST_FIELDS}
    for stage in (s.name for s in registered):
        closed = sum(finals[stage].values())
        stages[stage] = {
            "units_closed": closed,
            "outcomes": dict(finals[stage]),
            "acceptance_rate": (finals[stage]["accepted"] / closed) if closed else None,
            "admitted": dict(admitted[stage]),
            "by_role": {role: dict(c) for role, c in sorted(by_role[stage].items())},
            "top_reasons": [{"reason": r, "n": n} for r, n in reasons[stage].most_common(10)],
            "usage": dict(usage[stage]),
        }
    return {
        "dataset": dataset,
        "synthesis_id": synthesis_id,
        "shape": _shape(items, started["config"] if started is not None else None),
        "stages": stages,
        "gates": {gate: dict(c) for gate, c in sorted(gates.items())},
        "accepted_items": accepted_items,
        "per_accepted_item": (
            {name: value / accepted_items for name, value in item_usage.items()} if accepted_items else None
        ),
    }


def _gold_reasons(stage: str) -> bool:
    """Whether a stage's rejection reasons may quote gold (yes for a stage in the log no module registers now)."""
    spec = STAGES.get(stage)
    return spec is None or spec.gold_reasons


def _shape(items: list[dict[str, Any]], config_json: str | None) -> dict[str, Any]:
    """The produced shape against the recorded target (or, when none was recorded, the paper's shape)."""
    produced = shape_of(
        ItemShape(str(r["profile_id"]), r["batch"], int(r["n_facts"]), int(r["n_support"])) for r in items
    )
    recorded = (json.loads(config_json) if config_json else {}).get("target")
    target = ShapeTarget.model_validate(recorded) if recorded else ShapeTarget()
    return {
        "target_source": "recorded target" if recorded else "the paper's shape (no target was recorded)",
        "target": target.model_dump(),
        "produced": produced.as_dict(),
        "comparison": compare(produced, target),
        "unreachable": target.reachable(),
        "warnings": shape_warnings(produced),
    }


def shape_markdown(shape: dict[str, Any]) -> list[str]:
    lines = ["", f"Shape (target: {shape['target_source']}):", ""]
    lines += ["| measure | target | produced |", "| --- | --- | --- |"]
    for row in shape["comparison"]:
        produced = "-" if row["produced"] is None else row["produced"]
        lines.append(f"| {row['measure']} | {row['target']} | {produced} |")
    lines += [f"- target unreachable: {w}" for w in shape["unreachable"]]
    lines += [f"- warning: {w}" for w in shape["warnings"]]
    return lines


def summary_markdown(summary: dict[str, Any]) -> str:
    lines = [
        f"# Synthesis report: {summary['dataset']}",
        "",
        "| stage | closed | accepted | after revision | rejected | dropped | LLM calls | tokens in | tokens out |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for stage, s in summary["stages"].items():
        o, u = s["outcomes"], s["usage"]
        lines.append(
            f"| {stage} | {s['units_closed']} | {o.get('accepted', 0)} | {s['admitted'].get('after_revision', 0)} | "
            f"{o.get('rejected', 0)} | {o.get('dropped', 0)} | {int(u.get('calls', 0))} | "
            f"{int(u.get('tokens_in', 0))} | {int(u.get('tokens_out', 0))} |"
        )
    if summary["gates"]:
        lines += ["", "| gate | verdicts |", "| --- | --- |"]
        for gate, verdicts in summary["gates"].items():
            lines.append(f"| {gate} | " + ", ".join(f"{k}: {v}" for k, v in sorted(verdicts.items())) + " |")
    per = summary["per_accepted_item"]
    if summary.get("shape"):
        lines += shape_markdown(summary["shape"])
    lines += ["", f"Accepted items: {summary['accepted_items']}."]
    if per:
        lines.append(
            f"Per accepted item (stages III and augmentation): {per['calls']:.1f} LLM calls, "
            f"{per['tokens_in']:.0f} tokens in, {per['tokens_out']:.0f} tokens out"
            + (f", {per['cost_usd']:.4f} USD" if per.get("cost_usd") else "")
            + "."
        )
    for stage, s in summary["stages"].items():
        if s["top_reasons"]:
            lines += ["", f"Top reasons in {stage}:"]
            lines += [f"- {r['n']}x {r['reason']}" for r in s["top_reasons"]]
    return "\n".join(lines) + "\n"
