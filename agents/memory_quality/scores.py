"""Memory-quality tables from the recorded MemoryJudged verdicts, with HaluMem's two denominators.

For each axis the targets are the current ones: expected points (integrity), live memories (accuracy),
update points (update), questions with a reference answer (qa). The latest verdict of a target counts.
"all" divides by every target (a target whose judge reply stayed invalid, or that is not judged yet, counts
as a failure); "valid" divides by the targets with a valid verdict only. Per fact kind: a point's kind is
its fact's category; a memory's kinds are those of the facts its source turns disclose (or "(no disclosing
turn)"); a question's kind is its question type."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from neo4j import Driver
from pydantic import BaseModel, Field

from agents.memory_quality.points import FactPoint, MemoryRow, update_points
from agents.memory_quality.questions import QaQuestion
from graph.cypher_files import load_cypher

NO_DISCLOSING_TURN = "(no disclosing turn)"
ALL_KINDS = "all"
UPDATE_CATEGORIES = ("correct", "hallucination", "omission", "other")
QA_CATEGORIES = ("correct", "hallucination", "omission")
CATEGORY_AXES = {"update": UPDATE_CATEGORIES, "qa": QA_CATEGORIES}
AXES = ("integrity", "accuracy", "update", "qa")


class AxisRow(BaseModel):
    """One row of an axis table: a fact kind (or `all`) with counts and both denominators."""

    kind: str
    n_all: int = 0
    n_valid: int = 0
    n_invalid: int = 0
    n_unjudged: int = 0
    counts: dict[str, int] = Field(default_factory=dict)  # score "0"/"1"/"2" or update category -> n
    score_all: float | None = None  # mean score / 2 (integrity, accuracy)
    score_valid: float | None = None
    full_all: float | None = None  # share of score 2
    full_valid: float | None = None
    in_gold_all: float | None = None  # accuracy: share in the gold facts
    in_gold_valid: float | None = None
    rates_all: dict[str, float | None] = Field(default_factory=dict)  # update, qa: category -> share
    rates_valid: dict[str, float | None] = Field(default_factory=dict)


class AxisTable(BaseModel):
    axis: str
    rows: list[AxisRow]
    judge_models: list[str] = Field(default_factory=list)
    prompt_sha256: list[str] = Field(default_factory=list)


def load_verdicts(driver: Driver, database: str, system: str, profile_ids: list[str]) -> list[dict[str, Any]]:
    with driver.session(database=database) as session:
        return [
            dict(r)
            for r in session.run(load_cypher("memory_quality/judgments"), system=system, profile_ids=profile_ids)
        ]


def _ratio(num: float, den: int) -> float | None:
    return num / den if den else None


def _row(kind: str, targets: list[str], verdicts: dict[str, dict[str, Any]], axis: str) -> AxisRow:
    row = AxisRow(kind=kind, n_all=len(targets))
    total = full = in_gold = 0
    categories: dict[str, int] = defaultdict(int)
    for target in targets:
        v = verdicts.get(target)
        if v is None:
            row.n_unjudged += 1
            continue
        if not v["valid"]:
            row.n_invalid += 1
            continue
        row.n_valid += 1
        if axis in CATEGORY_AXES:
            categories[str(v["category"])] += 1
        else:
            score = int(v["score"])
            categories[str(score)] += 1
            total += score
            full += score == 2
            in_gold += bool(v["in_gold"])
    if axis in CATEGORY_AXES:
        row.counts = {c: categories.get(c, 0) for c in CATEGORY_AXES[axis]}
        row.rates_all = {c: _ratio(n, row.n_all) for c, n in row.counts.items()}
        row.rates_valid = {c: _ratio(n, row.n_valid) for c, n in row.counts.items()}
        return row
    row.counts = {s: categories.get(s, 0) for s in ("0", "1", "2")}
    row.score_all, row.score_valid = _ratio(total / 2, row.n_all), _ratio(total / 2, row.n_valid)
    row.full_all, row.full_valid = _ratio(full, row.n_all), _ratio(full, row.n_valid)
    if axis == "accuracy":
        row.in_gold_all, row.in_gold_valid = _ratio(in_gold, row.n_all), _ratio(in_gold, row.n_valid)
    return row


def _table(axis: str, targets: dict[str, list[str]], verdicts: dict[str, dict[str, Any]]) -> AxisTable:
    everything = list(dict.fromkeys(t for ts in targets.values() for t in ts))
    rows = [_row(ALL_KINDS, everything, verdicts, axis)]
    rows += [_row(kind, ts, verdicts, axis) for kind, ts in sorted(targets.items())]
    used = [verdicts[t] for t in everything if t in verdicts]
    return AxisTable(
        axis=axis,
        rows=rows,
        judge_models=sorted({str(v["judge_model"]) for v in used}),
        prompt_sha256=sorted({str(v["prompt_sha256"]) for v in used}),
    )


def latest_by_target(verdicts: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """(axis, profile|target) -> the verdict with the highest seq."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for v in sorted(verdicts, key=lambda v: v["seq"]):
        axis = v["axis"]
        if axis in ("integrity", "update"):
            target = v["fact_id"]
        else:
            target = v.get("item_id") if axis == "qa" else v["memory_id"]
        out[(v["axis"], f"{v['profile_id']}|{target}")] = v
    return out


def score_tables(
    facts: list[FactPoint],
    memories: list[MemoryRow],
    verdicts: list[dict[str, Any]],
    questions: list[QaQuestion] | None = None,
) -> tuple[list[AxisTable], list[dict[str, Any]]]:
    """The axis tables (only axes with at least one verdict) and the verdict rows that count in them."""
    latest = latest_by_target(verdicts)
    kind_of = {(f.profile_id, f.fact_id): f.kind for f in facts}
    targets: dict[str, dict[str, list[str]]] = {
        "integrity": defaultdict(list),
        "accuracy": defaultdict(list),
        "update": defaultdict(list),
        "qa": defaultdict(list),
    }
    row_kind: dict[tuple[str, str], str] = {}
    for f in facts:
        if f.expected:
            key = f"{f.profile_id}|{f.fact_id}"
            targets["integrity"][f.kind].append(key)
            row_kind[("integrity", key)] = f.kind
    for _, newer in update_points(facts):
        key = f"{newer.profile_id}|{newer.fact_id}"
        targets["update"][newer.kind].append(key)
        row_kind[("update", key)] = newer.kind
    for q in questions or []:
        key = f"{q.profile_id}|{q.item_id}"
        targets["qa"][q.kind].append(key)
        row_kind[("qa", key)] = q.kind
    for m in memories:
        key = f"{m.profile_id}|{m.memory_id}"
        kinds = sorted({kind_of.get((m.profile_id, fid), NO_DISCLOSING_TURN) for fid in m.anchored_fact_ids})
        for kind in kinds or [NO_DISCLOSING_TURN]:
            targets["accuracy"][kind].append(key)
        row_kind[("accuracy", key)] = ", ".join(kinds or [NO_DISCLOSING_TURN])
    tables = []
    rows = []
    for axis in AXES:
        verdicts_of_axis = {key: v for (a, key), v in latest.items() if a == axis}
        current = {t for ts in targets[axis].values() for t in ts}
        if not any(key in current for key in verdicts_of_axis):
            continue
        tables.append(_table(axis, targets[axis], verdicts_of_axis))
        for key in sorted(current):
            v = verdicts_of_axis.get(key)
            if v is None:
                continue
            rows.append(
                {
                    "judgment_id": v["judgment_id"],
                    "axis": axis,
                    "kind": row_kind[(axis, key)],
                    "profile_id": v["profile_id"],
                    "fact_id": v["fact_id"],
                    "memory_id": v["memory_id"],
                    "item_id": v.get("item_id"),
                    "score": v["score"],
                    "category": v["category"],
                    "in_gold": v["in_gold"],
                    "valid": v["valid"],
                    "reason": v["reason"],
                }
            )
    return tables, rows
