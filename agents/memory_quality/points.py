"""The material of a memory-quality evaluation, read from the graph by named Cypher files: each fact of the
profiles with its disclosing turns and the memories derived from them, each live memory of the system with
the facts its source turns disclose, memory counts per turn, and the update points the data has.

Update points: the event model has no supersession of facts. A fact whose metadata names the fact it replaces
(`"supersedes": "<fact id of the same profile>"`) is an update point; no input format shipped today writes
that key, so datasets without it have no update points (and the update table says so)."""

from __future__ import annotations

import json
from typing import Any

from neo4j import Driver
from pydantic import BaseModel, Field

from graph.cypher_files import load_cypher

UNCATEGORISED = "(no kind)"
SUPERSEDES_KEY = "supersedes"


class FactPoint(BaseModel):
    """A fact of a profile; an expected memory point when some turn disclosed it."""

    profile_id: str
    fact_id: str
    text: str
    kind: str
    disclosing_turn_ids: list[str] = Field(default_factory=list)
    remembered_by: list[str] = Field(default_factory=list)  # memories derived from a disclosing turn
    supersedes: str | None = None

    @property
    def expected(self) -> bool:
        return bool(self.disclosing_turn_ids)


class MemoryRow(BaseModel):
    """A live memory of the system with its source turns and the facts those turns disclose."""

    profile_id: str
    memory_id: str
    text: str
    source_turn_ids: list[str] = Field(default_factory=list)
    anchored_fact_ids: list[str] = Field(default_factory=list)


class TurnCount(BaseModel):
    profile_id: str
    turn_id: str
    role: str
    discloses: bool
    n_memories: int


def _rows(driver: Driver, database: str, name: str, **params: Any) -> list[dict[str, Any]]:
    with driver.session(database=database) as session:
        return [dict(r) for r in session.run(load_cypher(name), **params)]


def _supersedes(metadata: Any) -> str | None:
    if not isinstance(metadata, str) or not metadata.startswith("{"):
        return None
    try:
        value = json.loads(metadata).get(SUPERSEDES_KEY)
    except ValueError:
        return None
    return value if isinstance(value, str) and value else None


def load_fact_points(driver: Driver, database: str, system: str, profile_ids: list[str]) -> list[FactPoint]:
    return [
        FactPoint(
            profile_id=r["profile_id"],
            fact_id=r["fact_id"],
            text=r["text"] or "",
            kind=r["category"] or UNCATEGORISED,
            disclosing_turn_ids=sorted(r["turn_ids"]),
            remembered_by=sorted(r["memory_ids"]),
            supersedes=_supersedes(r["metadata"]),
        )
        for r in _rows(driver, database, "memory_quality/fact_points", system=system, profile_ids=profile_ids)
    ]


def load_memory_rows(driver: Driver, database: str, system: str, profile_ids: list[str]) -> list[MemoryRow]:
    return [
        MemoryRow(
            profile_id=r["profile_id"],
            memory_id=r["memory_id"],
            text=r["text"] or "",
            source_turn_ids=sorted(r["turn_ids"]),
            anchored_fact_ids=sorted(r["fact_ids"]),
        )
        for r in _rows(driver, database, "memory_quality/memory_anchors", system=system, profile_ids=profile_ids)
    ]


def load_turn_counts(driver: Driver, database: str, system: str, profile_ids: list[str]) -> list[TurnCount]:
    return [
        TurnCount(**r)
        for r in _rows(driver, database, "memory_quality/turn_memory_counts", system=system, profile_ids=profile_ids)
    ]


def update_points(facts: list[FactPoint]) -> list[tuple[FactPoint, FactPoint]]:
    """(earlier, newer) pairs: a disclosed fact that names, as the fact it supersedes, a fact of its profile."""
    by_id = {(f.profile_id, f.fact_id): f for f in facts}
    pairs = []
    for newer in facts:
        if newer.supersedes and newer.expected:
            earlier = by_id.get((newer.profile_id, newer.supersedes))
            if earlier is not None:
                pairs.append((earlier, newer))
    return pairs


def dataset_profiles(driver: Driver, database: str, dataset: str) -> list[str]:
    return [r["id"] for r in _rows(driver, database, "memory_quality/dataset_profiles", dataset=dataset)]


def profile_datasets(driver: Driver, database: str) -> dict[str, int]:
    return {r["dataset"]: r["n_profiles"] for r in _rows(driver, database, "memory_quality/datasets")}
