"""Recording a person's ruling: validate it against the graph, then append one AnswerAdjudicated event."""

from __future__ import annotations

from datetime import datetime

from neo4j import Driver
from pydantic import ValidationError

from agents.adjudication.cases import attempt_run_id, load_cases
from agents.adjudication.errors import (
    AdjudicationError,
    NoAccuracyVerdictError,
    NotPendingError,
    UnknownAttemptError,
    UnknownJudgmentError,
)
from agents.adjudication.models import AdjudicationRequest, VerdictCase
from graph.cypher_files import load_cypher
from graph.events import AnswerAdjudicated, NewEvent, normal_utc, now_iso
from graph.hashing import text_sha256
from graph.store import EventStore


def _normal_time(text: str) -> str:
    """The caller's UTC time in the event's one spelling (a bad or non-UTC time is left as given, for the event
    to refuse by name)."""
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return text
    offset = parsed.utcoffset()
    return normal_utc(parsed) if offset is not None and offset.total_seconds() == 0 else text


def adjudication_id(attempt_id: str, judgment_id: str, verdict: str, adjudicator: str, at: str) -> str:
    """Stable for the same ruling by the same person at the same time (so a retried append is a no-op)."""
    return f"{attempt_id}:adjudication:{text_sha256('|'.join((judgment_id, verdict, adjudicator, at)))[:12]}"


def _accuracy_judgment_ids(driver: Driver, database: str, attempt_id: str) -> set[str]:
    with driver.session(database=database) as session:
        return {
            str(r["judgment"]["id"])
            for r in session.run(load_cypher("agents/attempt_judgments"), attempt_id=attempt_id)
            if r["judgment"].get("kind") == "accuracy"
        }


def case_of(driver: Driver, database: str, attempt_id: str) -> VerdictCase:
    """The counted accuracy verdict of an attempt, pending or not; typed errors for an unknown attempt or
    one without an accuracy verdict of its run's judge."""
    run_id = attempt_run_id(driver, database, attempt_id)
    if run_id is None:
        raise UnknownAttemptError(
            f"no attempt {attempt_id!r} in the graph (attempt ids are <run_id>:<item_id>; "
            "`./colabench adjudicate --list` shows the pending ones)"
        )
    found = load_cases(driver, database, [run_id], include_resolved=True, attempt_ids=[attempt_id])
    if not found:
        raise NoAccuracyVerdictError(
            f"attempt {attempt_id!r} has no accuracy verdict of its run's judge to adjudicate "
            "(run it with `--judges accuracy` first)"
        )
    return found[0]


def record_adjudication(store: EventStore, request: AdjudicationRequest) -> AnswerAdjudicated:
    """Append the ruling as an AnswerAdjudicated event and return it. Refused (typed errors) when the attempt
    is unknown, has no counted accuracy verdict, names a judgment that is not an accuracy judgment of the
    attempt, or is not pending and `overrule` is off."""
    case = case_of(store.driver, store.database, request.attempt_id)
    judgment_id = request.judgment_id or case.judgment_id
    if request.judgment_id and request.judgment_id not in _accuracy_judgment_ids(
        store.driver, store.database, request.attempt_id
    ):
        raise UnknownJudgmentError(
            f"judgment {request.judgment_id!r} is not an accuracy judgment of attempt {request.attempt_id!r}; "
            f"its counted verdict is {case.judgment_id!r}"
        )
    if not case.pending and not request.overrule:
        if case.adjudication is not None:
            state = (
                f"already adjudicated {case.adjudication.verdict} by {case.adjudication.adjudicator} "
                f"at {case.adjudication.adjudicated_at}"
            )
        else:
            state = f"the judge's verdict is {case.judge_verdict}"
        raise NotPendingError(
            f"attempt {request.attempt_id!r} is not pending ({state}); pass --overrule (API: overrule: true) "
            "to record a ruling that replaces it"
        )
    at = _normal_time(request.adjudicated_at) if request.adjudicated_at else now_iso()
    try:
        event = AnswerAdjudicated(
            adjudication_id=adjudication_id(request.attempt_id, judgment_id, request.verdict, request.adjudicator, at),
            attempt_id=request.attempt_id,
            judgment_id=judgment_id,
            verdict=request.verdict,
            adjudicator=request.adjudicator,
            reason=request.reason,
            adjudicated_at=at,
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise AdjudicationError(f"invalid adjudication of {request.attempt_id!r}: {problems}") from exc
    store.append([NewEvent(event, actor=f"adjudicator:{request.adjudicator}", occurred_at=at)])
    return event
