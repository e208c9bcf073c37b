"""The no-LLM part of a memory-quality evaluation, from the graph alone: which expected memory points (facts
with a disclosing turn) have a memory derived from a disclosing turn, which memories derive from no disclosing
turn, and how many memories each turn produced; overall and per fact kind (the fact's category)."""

from __future__ import annotations

import time
from collections import defaultdict

from neo4j import Driver
from pydantic import BaseModel, Field

from agents.memory_quality.points import (
    UNCATEGORISED,
    FactPoint,
    MemoryRow,
    TurnCount,
    load_fact_points,
    load_memory_rows,
    load_turn_counts,
    update_points,
)

LISTED = 200  # rows of forgotten points and unanchored memories kept in the report


class KindCoverage(BaseModel):
    kind: str
    n_facts: int = 0
    n_points: int = 0
    n_remembered: int = 0
    recall: float | None = None
    n_memories: int = 0  # memories whose source turns disclose a fact of this kind


class TurnStats(BaseModel):
    n_turns: int = 0
    n_user_turns: int = 0
    n_disclosing_turns: int = 0
    turns_with_memories: int = 0
    mean_per_turn: float | None = None
    mean_per_user_turn: float | None = None
    mean_per_disclosing_turn: float | None = None
    max_per_turn: int = 0


class Coverage(BaseModel):
    system: str
    n_profiles: int
    profiles_without_memories: list[str] = Field(default_factory=list)
    n_facts: int = 0
    n_points: int = 0
    n_undisclosed: int = 0
    n_remembered: int = 0
    recall: float | None = None
    n_memories: int = 0
    n_unanchored: int = 0
    unanchored_share: float | None = None
    n_update_points: int = 0
    turns: TurnStats = Field(default_factory=TurnStats)
    per_kind: list[KindCoverage] = Field(default_factory=list)
    forgotten: list[dict[str, str]] = Field(default_factory=list)
    unanchored: list[dict[str, str]] = Field(default_factory=list)
    seconds: float = 0.0


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _mean(values: list[int]) -> float | None:
    return sum(values) / len(values) if values else None


def summarise_coverage(
    system: str, profile_ids: list[str], facts: list[FactPoint], memories: list[MemoryRow], turns: list[TurnCount]
) -> Coverage:
    """The coverage figures of these rows (pure: no database)."""
    kinds: dict[str, KindCoverage] = {}
    kind_of = {(f.profile_id, f.fact_id): f.kind for f in facts}
    for f in facts:
        k = kinds.setdefault(f.kind, KindCoverage(kind=f.kind))
        k.n_facts += 1
        if f.expected:
            k.n_points += 1
            k.n_remembered += bool(f.remembered_by)
    for m in memories:
        for kind in sorted({kind_of.get((m.profile_id, fid), UNCATEGORISED) for fid in m.anchored_fact_ids}):
            kinds.setdefault(kind, KindCoverage(kind=kind)).n_memories += 1
    for k in kinds.values():
        k.recall = _ratio(k.n_remembered, k.n_points)
    points = [f for f in facts if f.expected]
    remembered = sum(bool(f.remembered_by) for f in points)
    unanchored = [m for m in memories if not m.anchored_fact_ids]
    with_memories = {m.profile_id for m in memories}
    counts = [t.n_memories for t in turns]
    stats = TurnStats(
        n_turns=len(turns),
        n_user_turns=sum(t.role == "user" for t in turns),
        n_disclosing_turns=sum(t.discloses for t in turns),
        turns_with_memories=sum(n > 0 for n in counts),
        mean_per_turn=_mean(counts),
        mean_per_user_turn=_mean([t.n_memories for t in turns if t.role == "user"]),
        mean_per_disclosing_turn=_mean([t.n_memories for t in turns if t.discloses]),
        max_per_turn=max(counts, default=0),
    )
    return Coverage(
        system=system,
        n_profiles=len(profile_ids),
        profiles_without_memories=[p for p in profile_ids if p not in with_memories],
        n_facts=len(facts),
        n_points=len(points),
        n_undisclosed=len(facts) - len(points),
        n_remembered=remembered,
        recall=_ratio(remembered, len(points)),
        n_memories=len(memories),
        n_unanchored=len(unanchored),
        unanchored_share=_ratio(len(unanchored), len(memories)),
        n_update_points=len(update_points(facts)),
        turns=stats,
        per_kind=sorted(kinds.values(), key=lambda k: (k.kind == UNCATEGORISED, k.kind)),
        forgotten=[
            {"profile_id": f.profile_id, "fact_id": f.fact_id, "kind": f.kind, "text": f.text[:200]}
            for f in points
            if not f.remembered_by
        ][:LISTED],
        unanchored=[{"profile_id": m.profile_id, "memory_id": m.memory_id, "text": m.text[:200]} for m in unanchored][
            :LISTED
        ],
    )


def compute_coverage(driver: Driver, database: str, system: str, profile_ids: list[str]) -> Coverage:
    """Read the rows by query and summarise them; `seconds` is the wall time of both."""
    started = time.perf_counter()
    facts = load_fact_points(driver, database, system, profile_ids)
    memories = load_memory_rows(driver, database, system, profile_ids)
    turns = load_turn_counts(driver, database, system, profile_ids)
    coverage = summarise_coverage(system, profile_ids, facts, memories, turns)
    coverage.seconds = round(time.perf_counter() - started, 3)
    return coverage


def facts_by_profile(facts: list[FactPoint]) -> dict[str, list[FactPoint]]:
    out: dict[str, list[FactPoint]] = defaultdict(list)
    for f in facts:
        out[f.profile_id].append(f)
    return out
