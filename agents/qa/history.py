"""What a QA run reads from the graph: the questions (with the judge's gold kept apart from what the reader
sees) and each profile's whole history, sessions in haystack order with their dates."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, Field

from graph.cypher_files import load_cypher
from graph.store import EventStore
from query.expansion.time_range import parse_session_date


class HistoryTurn(BaseModel):
    turn_id: str
    role: str
    text: str


class HistorySession(BaseModel):
    session_id: str
    profile_id: str
    ordinal: int
    started_at: str | None = None  # as the dataset wrote it (shown to the reader)
    day: date | None = None  # parsed, for time pruning
    turns: list[HistoryTurn] = Field(default_factory=list)


class QaQuestion(BaseModel):
    """One question. `reference_answer`, `evidence_*` are gold: only the judge and the retrieval figures read them."""

    item_id: str
    profile_id: str
    dataset: str
    question_id: str
    question_type: str
    question: str
    asked_at: str | None = None
    asked_on: datetime | None = None
    abstention: bool = False
    reference_answer: str = ""
    evidence_session_ids: list[str] = Field(default_factory=list)
    evidence_turn_ids: list[str] = Field(default_factory=list)


def load_questions(store: EventStore, item_ids: Sequence[str]) -> list[QaQuestion]:
    """The questions of these items, in the given order."""
    with store.driver.session(database=store.database) as session:
        rows = [dict(r) for r in session.run(load_cypher("qa/questions"), item_ids=list(item_ids))]
    order = {iid: n for n, iid in enumerate(item_ids)}
    out = []
    for row in sorted(rows, key=lambda r: order[r["item_id"]]):
        metadata: dict[str, Any] = json.loads(row["metadata"]) if row["metadata"] else {}
        qid = str(metadata.get("question_id") or row["item_id"])
        asked_iso = metadata.get("asked_at_iso")
        asked_on = None
        if isinstance(asked_iso, str):
            try:
                asked_on = datetime.fromisoformat(asked_iso)
            except ValueError:
                asked_on = None
        out.append(
            QaQuestion(
                item_id=row["item_id"],
                profile_id=row["profile_id"],
                dataset=row["dataset"],
                question_id=qid,
                question_type=row["question_type"] or "unknown",
                question=row["question"],
                asked_at=row["asked_at"],
                asked_on=asked_on,
                abstention=qid.endswith("_abs") or "abstention" in row["labels"],
                reference_answer=row["reference_answer"] or "",
                evidence_session_ids=sorted(row["evidence_session_ids"]),
                evidence_turn_ids=sorted(row["evidence_turn_ids"]),
            )
        )
    return out


def load_histories(store: EventStore, profile_ids: Sequence[str]) -> dict[str, list[HistorySession]]:
    """profile id -> its sessions in haystack order (turns in order)."""
    with store.driver.session(database=store.database) as session:
        rows = list(session.run(load_cypher("qa/history"), profile_ids=sorted(set(profile_ids))))
    out: dict[str, list[HistorySession]] = {}
    for row in rows:
        metadata = json.loads(row["metadata"]) if row["metadata"] else {}
        day = parse_session_date(metadata.get("started_at_iso")) or parse_session_date(row["started_at"])
        out.setdefault(row["profile_id"], []).append(
            HistorySession(
                session_id=row["session_id"],
                profile_id=row["profile_id"],
                ordinal=int(row["ordinal"] or 0),
                started_at=row["started_at"],
                day=day,
                turns=[HistoryTurn(turn_id=t["turn_id"], role=t["role"], text=t["text"] or "") for t in row["turns"]],
            )
        )
    return out
