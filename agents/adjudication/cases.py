"""Reading what a person needs to rule on accuracy verdicts: per run, one query for all its attempts.

The verdict of an attempt is the one the metrics count: the latest accuracy judgment made by the run's judge
model with the run's judge prompt (`RunRecord.judge_filter`). It is pending when it is `needs_adjudication` and
the attempt has no adjudication yet.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from neo4j import Driver

from agents.adjudication.errors import UnknownRunError
from agents.adjudication.models import CallView, RequirementView, Ruling, Statement, VerdictCase
from agents.metrics.attempts import RunRecord, load_run_record
from graph.cypher_files import load_cypher

RESPONSE_CHARS = 1500


def latest_batch_run_ids(driver: Driver, database: str) -> list[str]:
    """The runs of the most recently started batch (empty when the graph has no runs)."""
    with driver.session(database=database) as session:
        return [str(r["run_id"]) for r in session.run(load_cypher("agents/latest_batch_runs"))]


def _record(driver: Driver, database: str, run_id: str) -> RunRecord:
    try:
        return load_run_record(driver, database, run_id)
    except ValueError as exc:
        raise UnknownRunError(f"no run {run_id!r} in the graph; `./colabench report --list` shows the runs") from exc


def _counted(run: RunRecord, judgments: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The accuracy judgment the metrics count (judgments come oldest first)."""
    model, shas = run.judge_filter()
    counted = [
        j
        for j in judgments
        if j.get("judge_model") == model
        and j.get("prompt_sha256") in shas
        and '"panel":true' not in str(j.get("details") or "")  # a judge panel's verdict is not the attempt's
    ]
    return counted[-1] if counted else None


def _call(raw: dict[str, Any]) -> CallView:
    response = str(raw.get("response") or "")
    arguments = json.loads(raw["arguments"]) if raw.get("arguments") else {}
    return CallView(
        round=int(raw.get("round") or 0),
        ordinal=int(raw.get("ordinal") or 0),
        tool=str(raw["tool"]),
        arguments=arguments if isinstance(arguments, dict) else {},
        ok=bool(raw.get("ok")),
        error=raw.get("error"),
        returned=list(raw.get("returned") or []),
        response=response if len(response) <= RESPONSE_CHARS else response[:RESPONSE_CHARS] + " [...]",
        response_chars=len(response),
    )


def _case(run: RunRecord, row: dict[str, Any]) -> VerdictCase | None:
    judgment = _counted(run, row["judgments"])
    if judgment is None:
        return None
    adjudication = row.get("adjudication")
    return VerdictCase(
        attempt_id=row["attempt_id"],
        run_id=row["run_id"],
        method=row["method"],
        item_id=row["item_id"],
        question=row["question"] or "",
        reference_answer=row.get("reference_answer"),
        requirements=[
            RequirementView(
                requirement_id=q["requirement_id"],
                text=q.get("text"),
                action=q.get("action"),
                statements=[Statement(turn_id=s["turn_id"], text=s.get("text") or "") for s in q["statements"]],
                spans=list(q["spans"]),
            )
            for q in row["requirements"]
        ],
        answer=row.get("answer"),
        judgment_id=judgment["id"],
        judge_verdict=str(judgment.get("verdict")),
        judge_rationale=judgment.get("rationale"),
        judge_model=judgment.get("judge_model"),
        judge_valid=bool(judgment.get("valid", True)),
        calls=[_call(c) for c in row["calls"]],
        adjudication=Ruling(
            adjudication_id=adjudication["id"],
            judgment_id=adjudication["judgment_id"],
            verdict=adjudication["verdict"],
            adjudicator=adjudication["adjudicator"],
            reason=adjudication.get("reason"),
            adjudicated_at=adjudication["adjudicated_at"],
            seq=int(adjudication["seq"]),
        )
        if adjudication
        else None,
    )


def load_cases(
    driver: Driver,
    database: str,
    run_ids: Sequence[str],
    *,
    include_resolved: bool = False,
    attempt_ids: Sequence[str] | None = None,
) -> list[VerdictCase]:
    """The accuracy verdicts of these runs that are pending (or every counted verdict with `include_resolved`),
    in run order then attempt id order; UnknownRunError for a run not in the graph."""
    cases: list[VerdictCase] = []
    for run_id in run_ids:
        run = _record(driver, database, run_id)
        with driver.session(database=database) as session:
            rows = [
                dict(r)
                for r in session.run(
                    load_cypher("adjudication/run_cases"),
                    run_id=run_id,
                    attempt_ids=list(attempt_ids) if attempt_ids is not None else None,
                )
            ]
        for row in rows:
            case = _case(run, row)
            if case is not None and (include_resolved or case.pending):
                cases.append(case)
    return cases


def attempt_run_id(driver: Driver, database: str, attempt_id: str) -> str | None:
    """The run of an attempt, or None when no such attempt exists."""
    with driver.session(database=database) as session:
        record = session.run(load_cypher("adjudication/attempt_run"), attempt_id=attempt_id).single()
    return None if record is None else str(record["run_id"])
