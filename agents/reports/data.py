"""The content of an evaluation report, assembled from the graph alone (no LLM): run records, metrics,
paired comparisons, groupings, the evidence funnel, and per-item evidence traces. The HTML, JSON and
Markdown writers all render this one structure."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from neo4j import Driver

from agents.llm.error_text import ERROR_LINE_CHARS
from agents.llm.settings import role_carries_gold
from agents.metrics.attempts import (
    AttemptMetrics,
    RunMetrics,
    RunRecord,
    load_attempt_metrics,
    load_run_record,
    summarise_run,
)
from agents.metrics.bootstrap import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from agents.metrics.comparison import GROUPINGS, compare, overall_gains, pair_rows
from agents.metrics.funnel import aggregate_funnel, compute_funnel
from agents.reports.costs import run_cost
from agents.reports.sections import SectionContext, collect_sections
from agents.reports.tool_returns import return_view
from graph.cypher_files import load_cypher
from graph.errors import UsageError

# A tool return is read whole up to this many characters (a Read returns at most 3,000 tokens) and shown clipped.
RESPONSE_READ_CHARS = 60_000
# Items or attempts per query when the report reads references and traces in batches.
REPORT_CHUNK = 250


def build_report_data(
    driver: Driver,
    database: str,
    run_ids: list[str],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    traces: bool = True,
) -> dict[str, Any]:
    """Everything a report shows for these runs. Paired gains are always method - baseline, on the items both
    runs share: with the floor method (No Memory + Hybrid) in the report, every other run is compared with it;
    otherwise the first run is compared with each of the others (the others are the baselines)."""
    if not run_ids:
        raise UsageError("no runs to report on")
    records = [load_run_record(driver, database, run_id) for run_id in run_ids]
    rows = {r.run_id: load_attempt_metrics(driver, database, r) for r in records}
    metrics = _run_metrics(driver, database, records, rows)
    judged = {r.run_id: metrics[r.run_id].n_judged > 0 for r in records}
    comparisons = _comparisons(records, rows, judged, resamples=resamples, seed=seed)
    headline = headline_pair(records, rows, metrics, judged, resamples=resamples, seed=seed)
    funnels = {r.run_id: compute_funnel(driver, database, r) for r in records}
    notes = _run_state_notes(records, metrics) + _endpoint_notes(driver, database, records) + _setup_notes(records)
    sections, section_notes = collect_sections(SectionContext(driver, database, records, rows, metrics))
    notes.extend(section_notes)
    datasets = sorted({r.dataset for r in records})
    ran = [r for r in records if any(row.attempted for row in rows[r.run_id])]
    for r in records:
        if r not in ran:
            notes.append(f"{r.label} (run {r.run_id}, {r.status}) attempted no item: it is left out of the title")
    items = _items(driver, database, records, rows, funnels) if traces else []
    return {
        "kind": "evaluation",
        "title": f"ColaBench evaluation: {', '.join(r.label for r in ran) or 'no run attempted an item'} on "
        f"{', '.join(datasets)}",
        "datasets": datasets,
        "batch_ids": sorted({r.batch_id for r in records}),
        "bootstrap": {"resamples": resamples, "seed": seed, "cluster": "profile"},
        "runs": [
            {
                **_run_entry(r, metrics[r.run_id].model_dump(), rows[r.run_id]),
                "endpoint_failures": endpoint_failures(driver, database, r.run_id),
            }
            for r in records
        ],
        "headline": headline,
        "comparisons": comparisons,
        "groups": _group_accuracy(records, rows),
        "funnel": {r.run_id: _answered_funnel(funnels[r.run_id], rows[r.run_id]) for r in records},
        "sections": sections,
        "items": items,
        # a title for every document the traces name (support, history, knowledge spans, tool returns)
        "titles": document_titles(driver, database, items),
        "notes": notes,
    }


def _run_metrics(
    driver: Driver, database: str, records: list[RunRecord], rows: dict[str, list[AttemptMetrics]]
) -> dict[str, RunMetrics]:
    """Each run's summary metrics, with the attempts a judge's endpoint error left unjudged."""
    metrics = {r.run_id: summarise_run(r, rows[r.run_id]) for r in records}
    for r in records:
        metrics[r.run_id].n_unjudged_by_errors = unjudged_by_endpoint_errors(driver, database, r.run_id)
    return metrics


def _comparisons(
    records: list[RunRecord],
    rows: dict[str, list[AttemptMetrics]],
    judged: dict[str, bool],
    *,
    resamples: int,
    seed: int,
) -> list[dict[str, Any]]:
    """The paired comparison (method - baseline) of every pair `comparison_pairs` names."""
    return [
        compare(
            (baseline.run_id, baseline.label, rows[baseline.run_id]),
            (method.run_id, method.label, rows[method.run_id]),
            resamples=resamples,
            seed=seed,
            judged=judged[method.run_id] and judged[baseline.run_id],
        ).model_dump()
        for method, baseline in comparison_pairs(records)
    ]


def _run_state_notes(records: list[RunRecord], metrics: dict[str, RunMetrics]) -> list[str]:
    """Per run: unfinished work, verdicts that need adjudication, and judge inputs the context budget
    shortened."""
    notes = []
    for r in records:
        m = metrics[r.run_id]
        if r.status != "finished":
            notes.append(
                f"run {r.run_id} is {r.status}: {m.n_items - m.n_answered} item(s) unanswered, "
                f"{m.n_answered - m.n_judged} answered but unjudged; accuracy counts them as not passed"
            )
        if m.n_needs_adjudication:
            notes.append(
                f"run {r.run_id}: {m.n_needs_adjudication} verdict(s) need adjudication "
                f"({m.n_invalid_judge_replies} because the judge's reply stayed invalid); counted as not passed; "
                f"{m.n_pending} still pending (`./colabench adjudicate {r.run_id}`)"
            )
        if m.n_judge_inputs_shortened:
            notes.append(
                f"run {r.run_id}: the judge context budget shortened the inputs of {m.n_judge_inputs_shortened} "
                f"verdict(s), leaving out {m.judge_chars_left_out:,} characters (documents first, then tool returns)"
            )
    return notes


def _endpoint_notes(driver: Driver, database: str, records: list[RunRecord]) -> list[str]:
    """Per run: its endpoint errors by role and stage, and the answers flagged as cut, tool-call-like or
    empty."""
    notes = []
    for r in records:
        for f in endpoint_failures(driver, database, r.run_id):
            again = "a rerun may help" if f["retryable"] else "refused: a rerun repeats it"
            # A note is free text (no record kind to redact by): a gold-bearing role's error text stays in its
            # runs[].endpoint_failures row, where the redaction hides it without the token.
            latest = (
                "see this run's endpoint_failures (gold: shown with the API token)"
                if role_carries_gold(str(f["role"]))
                else " ".join(str(f["latest_error"]).split())[:ERROR_LINE_CHARS]
            )
            notes.append(
                f"run {r.run_id}: {f['n']} {f['role']} endpoint error(s) at {f['stage']} ({again}); latest: {latest}"
            )
        flags = r.counts or {}
        if flags.get("cut_by_length") or flags.get("looks_like_tool_call") or flags.get("not_an_answer"):
            notes.append(
                f"run {r.run_id}: {flags.get('cut_by_length', 0)} answer(s) cut by max_tokens, "
                f"{flags.get('looks_like_tool_call', 0)} answer(s) that look like an unparsed tool call, "
                f"{flags.get('not_an_answer', 0)} answer(s) empty or a cut-off JSON fragment (flagged)"
            )
    return notes


def _setup_notes(records: list[RunRecord]) -> list[str]:
    """The first run's own notes, every deviation from the paper's setup (with the runs it holds for), and how
    token limits were counted."""
    first = records[0]
    notes = [str(note) for note in first.config.get("notes", [])]
    for deviation in dict.fromkeys(d for r in records for d in r.config.get("memory_deviations", [])):
        runs = ", ".join(r.run_id for r in records if deviation in r.config.get("memory_deviations", []))
        notes.append(f"deviation from the paper's setup ({runs}): {deviation}")
    tokenizer = first.config.get("tokenizer")
    if isinstance(tokenizer, dict) and tokenizer.get("source") != "fallback":
        # (the fallback already has its note, written by the run)
        notes.append(f"Read's 3,000-token limit and A-MEM's 5,120-token cap were counted with {tokenizer.get('name')}")
    elif tokenizer is None:
        notes.append(
            "this run predates the answering model's tokenizer: Read's and A-MEM's token limits were counted with "
            "MiniLM's WordPiece"
        )
    return notes


def comparison_pairs(records: list[RunRecord]) -> list[tuple[RunRecord, RunRecord]]:
    """(method, baseline) per paired comparison of the report: every run against the floor run (No Memory +
    Hybrid) when the report holds one, else the first run against each of the others."""
    from agents.methods.registry import METHODS

    floors = [r for r in records if METHODS.get(r.method) is not None and METHODS[r.method].floor]
    if floors:
        floor = floors[0]
        return [(r, floor) for r in records if r is not floor]
    return [(records[0], other) for other in records[1:]]


def document_titles(driver: Driver, database: str, items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """id -> {kind, title} for every document the items' traces name."""
    from agents.reports.retrieval_details import load_titles

    ids: list[str] = []
    for item in items:
        ids.extend(item["support_doc_ids"])
        ids.extend(item["history_doc_ids"])
        for req in item["requirements"]:
            ids.extend(span["doc_id"] for span in req["spans"])
        for attempt in item["attempts"].values():
            for call in attempt.get("calls", []):
                ids.extend(r["id"] for r in call["returned"] if r.get("kind") == "document")
    # documents only: a turn's text can be gold (an iKAT turn stating a reference answer), a document's title not
    return {
        node_id: {"kind": row["kind"], "title": row["title"]}
        for node_id, row in load_titles(driver, database, ids).items()
        if row["kind"] == "document"
    }


def headline_pair(
    records: list[RunRecord],
    rows: dict[str, list[AttemptMetrics]],
    metrics: dict[str, Any],
    judged: dict[str, bool],
    *,
    resamples: int,
    seed: int,
) -> dict[str, Any] | None:
    """The paper's main-table pair when both runs are in the report (a method whose registry entry names a
    `headline_baseline`, e.g. MemKB vs Mem0 + Hybrid): the paired gains with intervals, and the floor runs
    (No Memory + Hybrid) beside them. None when the report holds no such pair."""
    from agents.methods.registry import METHODS

    by_method = {r.method: r for r in records}
    for record in records:
        spec = METHODS.get(record.method)
        baseline = by_method.get(spec.headline_baseline) if spec and spec.headline_baseline else None
        if baseline is None:
            continue
        both_judged = judged[record.run_id] and judged[baseline.run_id]
        # only the two gains the headline shows (the full comparison's groups and strata are not needed here)
        pairs = pair_rows(rows[baseline.run_id], rows[record.run_id])
        gains = overall_gains(pairs, resamples=resamples, seed=seed, judged=both_judged, metrics=("accuracy", "turns"))
        floors = [
            {"run_id": r.run_id, "label": r.label, "accuracy": metrics[r.run_id].accuracy}
            for r in records
            if METHODS.get(r.method) is not None and METHODS[r.method].floor
        ]
        return {
            "method_run": record.run_id,
            "method_label": record.label,
            "baseline_run": baseline.run_id,
            "baseline_label": baseline.label,
            "method_accuracy": metrics[record.run_id].accuracy,
            "baseline_accuracy": metrics[baseline.run_id].accuracy,
            "n_common_items": len(pairs),
            "n_clusters": len({a.profile_id for a, _ in pairs}),
            "accuracy_gain": gains["accuracy"].model_dump() if "accuracy" in gains else None,
            "turns_gain": gains["turns"].model_dump(),
            "floor": floors,
        }
    return None


def _answered_funnel(funnel: list[Any], rows: list[AttemptMetrics]) -> dict[str, Any]:
    """The funnel over the items the run answered (n stated); errored or unattempted items are listed apart,
    not counted as chains that broke."""
    answered = {r.item_id for r in rows if r.answered}
    out = aggregate_funnel([f for f in funnel if f.item_id in answered])
    out["n_answered_items"] = len(answered)
    out["left_out_items"] = [
        {"item_id": r.item_id, "status": r.status or "not attempted"} for r in rows if not r.answered
    ]
    return out


def _run_entry(record: RunRecord, metrics: dict[str, Any], rows: list[AttemptMetrics]) -> dict[str, Any]:
    return {
        "run_id": record.run_id,
        "method": record.method,
        "label": record.label,
        "dataset": record.dataset,
        "batch_id": record.batch_id,
        "status": record.status,
        "dataset_fingerprint": record.dataset_fingerprint,
        "models": record.models,
        "prompt_hashes": record.prompt_hashes,
        "seeds": record.seeds,
        "versions": record.versions,
        "budget": record.config.get("budget"),
        "judges": record.config.get("judges"),
        "state_summaries": record.config.get("state_summaries", {}),
        "memory_system": (record.config.get("method") or {}).get("memory_system"),
        "memory_build": (record.config.get("memory_build") or {}).get("total"),
        "usage": record.usage,
        # per role and per item, USD only with prices (agents/reports/costs.py)
        "cost": run_cost(record.usage, int(metrics.get("n_items") or len(record.item_ids or []) or 0)),
        "metrics": metrics,
        "n_profiles": len({r.profile_id for r in rows}),
        "flags": {
            "cut_by_length": int((record.counts or {}).get("cut_by_length", 0)),
            "looks_like_tool_call": int((record.counts or {}).get("looks_like_tool_call", 0)),
            "not_an_answer": int((record.counts or {}).get("not_an_answer", 0)),
        },
    }


def unjudged_by_endpoint_errors(driver: Driver, database: str, run_id: str) -> int:
    """Answered attempts of the run that a judge's endpoint error left without that judge's judgment."""
    with driver.session(database=database) as session:
        record = session.run(load_cypher("reports/unjudged_by_endpoint_errors"), run_id=run_id).single()
    return int(record["n"]) if record is not None else 0


def endpoint_failures(driver: Driver, database: str, run_id: str) -> list[dict[str, Any]]:
    """The run's EndpointFailed events per role and stage (count, retryable, latest error text)."""
    with driver.session(database=database) as session:
        return [dict(r) for r in session.run(load_cypher("agents/endpoint_failures"), run_id=run_id)]


def _group_accuracy(records: list[RunRecord], rows: dict[str, list[AttemptMetrics]]) -> dict[str, Any]:
    """Accuracy of each run per group of each grouping (not paired; n per cell)."""
    out: dict[str, Any] = {}
    for name, grouping in GROUPINGS.items():
        labels = sorted({grouping(r) for rs in rows.values() for r in rs})
        table: dict[str, dict[str, Any]] = {}
        for label in labels:
            table[label] = {}
            for record in records:
                subset = [r for r in rows[record.run_id] if grouping(r) == label]
                judged = any(r.verdict is not None for r in rows[record.run_id])
                table[label][record.run_id] = {
                    "n": len(subset),
                    "accuracy": (sum(1 for r in subset if r.passed) / len(subset)) if subset and judged else None,
                }
        out[name] = table
    return out


def _items(
    driver: Driver,
    database: str,
    records: list[RunRecord],
    rows: dict[str, list[AttemptMetrics]],
    funnels: dict[str, list[Any]],
) -> list[dict[str, Any]]:
    """Every item's reference and each run's attempt trace, read in batches (one query per chunk of items
    and per chunk of attempts, never one per attempt)."""
    item_ids = list(dict.fromkeys(i for record in records for i in record.item_ids))
    by_run = {run_id: {r.item_id: r for r in rs} for run_id, rs in rows.items()}
    funnel_by = {run_id: {(f.item_id, f.requirement_id): f.model_dump() for f in fs} for run_id, fs in funnels.items()}
    refs = _item_references(driver, database, item_ids)
    attempted = [
        f"{record.run_id}:{item_id}"
        for record in records
        for item_id in item_ids
        if (row := by_run[record.run_id].get(item_id)) is not None and row.attempted
    ]
    traces = _attempt_traces(driver, database, attempted)
    items = []
    for item_id in item_ids:
        ref = refs.get(item_id)
        if ref is None:
            raise UsageError(f"item {item_id!r} is not in the graph")
        attempts = {}
        for record in records:
            row = by_run[record.run_id].get(item_id)
            if row is None:
                continue
            trace = traces.get(f"{record.run_id}:{item_id}")
            attempts[record.run_id] = _attempt_entry(record, row, funnel_by[record.run_id], ref, trace)
        items.append(
            {
                "item_id": item_id,
                "profile_id": ref["profile_id"],
                "question": ref["question"],
                "asked_at": ref["asked_at"],
                "reference_answer": ref["reference_answer"],
                "requirements": ref["requirements"],
                "support_doc_ids": ref["support_doc_ids"],
                "history_doc_ids": ref["history_doc_ids"],
                "attempts": attempts,
            }
        )
    return items


def _chunks(ids: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _item_references(driver: Driver, database: str, item_ids: list[str]) -> dict[str, dict[str, Any]]:
    """item id -> its reference for the report: requirements with their spans' text (lines of the document)."""
    out: dict[str, dict[str, Any]] = {}
    with driver.session(database=database) as session:
        for chunk in _chunks(item_ids, REPORT_CHUNK):
            for record in session.run(load_cypher("reports/item_references"), item_ids=chunk):
                ref = dict(record)
                ref["requirements"] = [
                    {
                        **req,
                        "spans": [
                            {
                                "doc_id": s["doc_id"],
                                "start_line": s["start_line"],
                                "end_line": s["end_line"],
                                "text": "\n".join(s["lines"]),
                            }
                            for s in req["spans"]
                        ],
                    }
                    for req in ref["requirements"]
                ]
                out[str(ref["item_id"])] = ref
    return out


def _attempt_traces(driver: Driver, database: str, attempt_ids: list[str]) -> dict[str, dict[str, Any]]:
    """attempt id -> {attempt, calls (responses cut past the report's length), judgments (oldest first)}."""
    out: dict[str, dict[str, Any]] = {}
    with driver.session(database=database) as session:
        for chunk in _chunks(attempt_ids, REPORT_CHUNK):
            result = session.run(
                load_cypher("reports/attempt_traces"), attempt_ids=chunk, response_chars=RESPONSE_READ_CHARS
            )
            for record in result:
                out[str(record["attempt_id"])] = {
                    "attempt": dict(record["attempt"]),
                    "calls": [dict(c) for c in record["calls"]],
                    "judgments": [dict(j) for j in record["judgments"]],
                }
    return out


def _attempt_entry(
    record: RunRecord,
    row: AttemptMetrics,
    funnel: dict[tuple[str, str], Any],
    ref: dict[str, Any],
    trace: dict[str, Any] | None,
) -> dict[str, Any]:
    attempt_id = f"{record.run_id}:{row.item_id}"
    entry: dict[str, Any] = {
        "attempt_id": attempt_id,
        "status": row.status,
        "verdict": row.verdict,
        "turns": row.turns,
        "rounds": row.rounds,
        "tokens": row.tokens,
        "read_recall": row.read_recall,
        "first_search_hit": row.first_search_hit,
        "search_hit": row.search_hit,
        "quality": row.quality,
        "error_category": row.error_category,
        "visibility": row.visibility,
        "funnel": [funnel[(row.item_id, r["id"])] for r in ref["requirements"] if (row.item_id, r["id"]) in funnel],
    }
    if not row.attempted:
        return entry
    if trace is None:
        raise UsageError(f"attempt {attempt_id!r} is not in the graph")
    entry["answer"] = trace["attempt"].get("answer")
    entry["finish"] = trace["attempt"].get("finish")
    entry["error"] = trace["attempt"].get("error")
    # The final answer's LLM exchange (the exact request, `/exchanges/<hash>`); None for runs before it was kept.
    entry["exchange"] = trace["attempt"].get("answer_exchange")
    entry["calls"] = [
        {
            "id": c["id"],
            "round": c["round"],
            "ordinal": c["ordinal"],
            "tool": c["tool"],
            "recipe": c.get("recipe"),
            "arguments": json.loads(c["arguments"]) if c.get("arguments") else {},
            "ok": c["ok"],
            "error": c.get("error"),
            "returned": c["returned"],
            # what it returned, as ranked lists, numbered lines or an error (agents/reports/tool_returns.py)
            "shown": return_view(str(c["tool"]), str(c.get("response") or ""), ok=bool(c["ok"])),
            "exchange": c.get("exchange"),
        }
        for c in trace["calls"]
    ]
    entry["judgments"] = [
        {
            "id": j["id"],
            "kind": j["kind"],
            "verdict": j.get("verdict"),
            "score": j.get("score"),
            "rationale": j.get("rationale"),
            "error_category": j.get("error_category"),
            "visibility": j.get("visibility"),
            "valid": j.get("valid"),
            "judge_model": j.get("judge_model"),
            "prompt_name": j.get("prompt_name"),
            "prompt_sha256": j.get("prompt_sha256"),
            "details": json.loads(j["details"]) if j.get("details") else {},
            "exchange": j.get("exchange"),
        }
        for j in trace["judgments"]
    ]
    return entry
