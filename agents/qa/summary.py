"""Per-type results of a QA run, read back from the graph (so a resumed run and the report see the same
numbers): accuracy beside the retrieval figures of the same units, the retrieval-or-reading diagnosis of
each question, latency and tokens."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from agents.qa.history import QaQuestion
from graph.cypher_files import load_cypher
from graph.store import EventStore

# A question's retrieval is a "hit" when every evidence unit is among the fed units (recall_all).
DIAGNOSES = ("retrieved_correct", "retrieved_wrong", "missed_correct", "missed_wrong")


class AnswerRow(BaseModel):
    item_id: str
    question_type: str
    abstention: bool
    answered: bool
    judged: bool
    correct: bool | None = None
    valid: bool | None = None
    rule: str | None = None
    tokens: int = 0
    reader_ms: float = 0.0
    retrieval: dict[str, Any] | None = None
    answer: str | None = None  # the stored answer (a resumed run judges it without asking the reader again)
    time_range: str | None = None  # time-aware rag: range | none | no_date | invalid (the reply stayed invalid)


class TypeSummary(BaseModel):
    question_type: str
    n: int
    n_answered: int
    n_judged: int
    n_invalid: int = 0
    accuracy: float | None = None  # correct / judged (invalid verdicts count as wrong)
    recall_any: float | None = None  # unit level at k, over questions with evidence
    recall_all: float | None = None
    ndcg: float | None = None
    session_recall_all: float | None = None
    n_retrieval: int = 0
    diagnosis: dict[str, int] = Field(default_factory=dict)
    mean_reader_ms: float | None = None
    mean_tokens: float | None = None


class QaRunSummary(BaseModel):
    qa_run_id: str
    label: str
    per_type: list[TypeSummary]
    overall: TypeSummary
    task_averaged_accuracy: float | None = None
    time_ranges: dict[str, int] = Field(default_factory=dict)  # time-aware rag: questions by reading status
    rows: list[AnswerRow] = Field(default_factory=list)


def answer_rows(store: EventStore, qa_run_id: str, questions: Sequence[QaQuestion]) -> list[AnswerRow]:
    """One row per question of the run (answered or not)."""
    with store.driver.session(database=store.database) as session:
        found = {r["item_id"]: dict(r) for r in session.run(load_cypher("qa/run_answers"), qa_run_id=qa_run_id)}
    rows = []
    for q in questions:
        r = found.get(q.item_id)
        details = json.loads(r["details"]) if r and r["details"] else {}
        rows.append(
            AnswerRow(
                item_id=q.item_id,
                question_type=q.question_type,
                abstention=q.abstention,
                answered=r is not None,
                judged=bool(r and r["correct"] is not None),
                correct=r["correct"] if r else None,
                valid=r["valid"] if r else None,
                rule=r["rule"] if r else None,
                tokens=int((r["tokens_in"] or 0) + (r["tokens_out"] or 0)) if r else 0,
                reader_ms=float(r["reader_ms"] or 0.0) if r else 0.0,
                retrieval=details.get("retrieval"),
                answer=r["answer"] if r else None,
                time_range=_time_range_status(details),
            )
        )
    return rows


def _time_range_status(details: dict[str, Any]) -> str | None:
    if "time_note" not in details:
        return None
    found = details.get("time_range")
    if isinstance(found, dict):
        return str(found.get("status") or "range")  # answers recorded before readings had a status
    return "none"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarise_type(name: str, rows: Sequence[AnswerRow]) -> TypeSummary:
    judged = [r for r in rows if r.judged]
    answered = [r for r in rows if r.answered]
    with_retrieval = [r for r in rows if r.retrieval and "unit" in r.retrieval]
    diagnosis = dict.fromkeys(DIAGNOSES, 0)
    for r in with_retrieval:
        if not r.judged:
            continue
        assert r.retrieval is not None
        hit = r.retrieval["unit"]["recall_all"] >= 1.0
        diagnosis[f"{'retrieved' if hit else 'missed'}_{'correct' if r.correct else 'wrong'}"] += 1
    sessions = [
        r.retrieval["session"]["recall_all"] for r in with_retrieval if r.retrieval and "session" in r.retrieval
    ]
    return TypeSummary(
        question_type=name,
        n=len(rows),
        n_answered=len(answered),
        n_judged=len(judged),
        n_invalid=sum(1 for r in judged if r.valid is False),
        accuracy=_mean([1.0 if r.correct else 0.0 for r in judged]),
        recall_any=_mean([r.retrieval["unit"]["recall_any"] for r in with_retrieval if r.retrieval]),
        recall_all=_mean([r.retrieval["unit"]["recall_all"] for r in with_retrieval if r.retrieval]),
        ndcg=_mean([r.retrieval["unit"]["ndcg"] for r in with_retrieval if r.retrieval]),
        session_recall_all=_mean(sessions),
        n_retrieval=len(with_retrieval),
        diagnosis=diagnosis if with_retrieval else {},
        mean_reader_ms=_mean([r.reader_ms for r in answered]),
        mean_tokens=_mean([float(r.tokens) for r in answered]),
    )


def summarise_run(qa_run_id: str, label: str, rows: Sequence[AnswerRow]) -> QaRunSummary:
    """Per question type (abstention questions as their own group `abstention`), overall (micro) and the
    task-averaged accuracy (mean over groups)."""
    groups: dict[str, list[AnswerRow]] = {}
    for r in rows:
        groups.setdefault("abstention" if r.abstention else r.question_type, []).append(r)
    per_type = [summarise_type(name, group) for name, group in sorted(groups.items())]
    accuracies = [t.accuracy for t in per_type if t.accuracy is not None]
    time_ranges: dict[str, int] = {}
    for r in rows:
        if r.time_range is not None:
            time_ranges[r.time_range] = time_ranges.get(r.time_range, 0) + 1
    return QaRunSummary(
        qa_run_id=qa_run_id,
        label=label,
        per_type=per_type,
        overall=summarise_type("all", rows),
        task_averaged_accuracy=_mean(accuracies),
        time_ranges=time_ranges,
        rows=list(rows),
    )
