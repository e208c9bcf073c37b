"""Adjudication over GraphQL: the verdicts waiting for a person (`pendingAdjudications`) and a person's ruling
(`adjudicate`). Both need the API token: the cases carry gold (requirements, reference answer, the judge's
rationale) and a ruling is a write."""

from __future__ import annotations

import asyncio
from typing import Any

import strawberry
from strawberry.scalars import JSON

from api.errors import ApiError, BadInputError, ConflictError, NotFoundError
from api.schema.context import ApiContext, Info, context_of
from api.schema.values import page_size


@strawberry.type(description="A person's ruling on an accuracy verdict (the latest ruling of an attempt wins).")
class AdjudicationRuling:
    id: strawberry.ID
    judgment_id: str
    verdict: str
    adjudicator: str
    reason: str | None = strawberry.field(description="why (gold, like a judge's rationale)")
    adjudicated_at: str
    seq: int


@strawberry.type(description="A user turn a requirement cites.")
class AdjudicationStatement:
    turn_id: str
    text: str


@strawberry.type(description="An answer requirement as the adjudicator sees it (text and action are gold).")
class AdjudicationRequirement:
    id: strawberry.ID
    text: str | None
    action: str | None
    statements: list[AdjudicationStatement]
    spans: list[str]


@strawberry.type(description="One tool call of the attempt (its response cut to 1,500 characters).")
class AdjudicationCall:
    round: int
    ordinal: int
    tool: str
    arguments: JSON
    ok: bool
    error: str | None
    returned: list[str]
    response: str
    response_chars: int


@strawberry.type(description="An attempt's counted accuracy verdict with what a person needs to rule on it.")
class AdjudicationCase:
    attempt_id: strawberry.ID
    run_id: str
    method: str
    item_id: str
    question: str
    reference_answer: str | None
    requirements: list[AdjudicationRequirement]
    answer: str | None
    judgment_id: str
    judge_verdict: str
    judge_rationale: str | None
    judge_model: str | None
    pending: bool
    calls: list[AdjudicationCall]
    adjudication: AdjudicationRuling | None

    @classmethod
    def from_case(cls, case: Any) -> AdjudicationCase:
        ruling = case.adjudication
        return cls(
            attempt_id=strawberry.ID(case.attempt_id),
            run_id=case.run_id,
            method=case.method,
            item_id=case.item_id,
            question=case.question,
            reference_answer=case.reference_answer,
            requirements=[
                AdjudicationRequirement(
                    id=strawberry.ID(q.requirement_id),
                    text=q.text,
                    action=q.action,
                    statements=[AdjudicationStatement(turn_id=s.turn_id, text=s.text) for s in q.statements],
                    spans=list(q.spans),
                )
                for q in case.requirements
            ],
            answer=case.answer,
            judgment_id=case.judgment_id,
            judge_verdict=case.judge_verdict,
            judge_rationale=case.judge_rationale,
            judge_model=case.judge_model,
            pending=case.pending,
            calls=[
                AdjudicationCall(
                    round=c.round,
                    ordinal=c.ordinal,
                    tool=c.tool,
                    arguments=c.arguments,
                    ok=c.ok,
                    error=c.error,
                    returned=list(c.returned),
                    response=c.response,
                    response_chars=c.response_chars,
                )
                for c in case.calls
            ],
            adjudication=None
            if ruling is None
            else AdjudicationRuling(
                id=strawberry.ID(ruling.adjudication_id),
                judgment_id=ruling.judgment_id,
                verdict=ruling.verdict,
                adjudicator=ruling.adjudicator,
                reason=ruling.reason,
                adjudicated_at=ruling.adjudicated_at,
                seq=ruling.seq,
            ),
        )


@strawberry.type(description="The recorded ruling.")
class AdjudicationResult:
    adjudication_id: strawberry.ID
    attempt_id: str
    judgment_id: str
    verdict: str
    adjudicator: str
    adjudicated_at: str
    head_seq: int


def _api_error(exc: Exception) -> ApiError:
    from agents.adjudication import errors

    if isinstance(exc, (errors.UnknownAttemptError, errors.UnknownRunError)):
        return NotFoundError(str(exc))
    if isinstance(exc, errors.NotPendingError):
        return ConflictError(str(exc))
    return BadInputError(str(exc))


def _require_token(context: ApiContext) -> None:
    # Gold and writes: the token itself, never only a server that reveals gold.
    context.require_writer()


async def pending_adjudications(
    info: Info, runs: list[strawberry.ID] | None, include_resolved: bool, first: int
) -> list[AdjudicationCase]:
    context = context_of(info)
    _require_token(context)
    size = page_size(first, "pendingAdjudications")
    from agents.adjudication.cases import latest_batch_run_ids, load_cases
    from agents.adjudication.errors import AdjudicationError

    resources = context.resources

    def read() -> list[Any]:
        driver = resources.sync_driver()
        run_ids = [str(r) for r in runs] if runs else latest_batch_run_ids(driver, resources.database)
        return load_cases(driver, resources.database, run_ids, include_resolved=include_resolved)

    try:
        cases = await asyncio.to_thread(read)
    except AdjudicationError as exc:
        raise _api_error(exc) from exc
    return [AdjudicationCase.from_case(c) for c in cases[:size]]


async def adjudicate(
    info: Info,
    attempt: strawberry.ID,
    verdict: str,
    reason: str,
    adjudicator: str,
    judgment_id: str | None,
    adjudicated_at: str | None,
    overrule: bool,
) -> AdjudicationResult:
    from pydantic import ValidationError

    from agents.adjudication.errors import AdjudicationError
    from agents.adjudication.models import AdjudicationRequest
    from agents.adjudication.record import record_adjudication

    context = context_of(info)
    _require_token(context)
    try:
        request = AdjudicationRequest.model_validate(
            {
                "attempt_id": str(attempt),
                "verdict": verdict,
                "reason": reason,
                "adjudicator": adjudicator,
                "judgment_id": judgment_id,
                "adjudicated_at": adjudicated_at,
                "overrule": overrule,
            }
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:10])
        raise BadInputError(f"invalid adjudication: {problems}") from exc
    resources = context.resources
    try:
        event = await asyncio.to_thread(lambda: record_adjudication(resources.store(), request))
    except AdjudicationError as exc:
        raise _api_error(exc) from exc
    return AdjudicationResult(
        adjudication_id=strawberry.ID(event.adjudication_id),
        attempt_id=event.attempt_id,
        judgment_id=event.judgment_id,
        verdict=event.verdict,
        adjudicator=event.adjudicator,
        adjudicated_at=event.adjudicated_at,
        head_seq=await resources.reader.head_seq(),
    )
