"""The mutation root: incremental profile growth and adjudication (need the API token)."""

from __future__ import annotations

import asyncio
from typing import Any

import strawberry
from pydantic import ValidationError

from api.errors import BadInputError
from api.growth.models import SessionAppend, TurnsAppend
from api.schema.adjudication import AdjudicationResult, adjudicate
from api.schema.context import Info, context_of
from api.schema.growth import AppendResult, TurnInput


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:10]:
        where = ".".join(str(p) for p in error["loc"]) or "(input)"
        parts.append(f"{where}: {error['msg']}")
    return "invalid input: " + "; ".join(parts)


async def _append(info: Info, model: type[SessionAppend] | type[TurnsAppend], data: dict[str, Any]) -> AppendResult:
    """Check the writer, validate the whole request with pydantic (errors name their path, e.g. turns.0.role),
    then append it off the event loop."""
    context = context_of(info)
    context.require_writer()
    try:
        request = model.model_validate(data)
    except ValidationError as exc:
        raise BadInputError(_validation_message(exc)) from exc
    outcome = await asyncio.to_thread(lambda: context.resources.growth().append(request))
    return AppendResult.from_outcome(outcome)


@strawberry.type
class Mutation:
    @strawberry.mutation(
        description="Start a session of a profile with its turns (events SessionStarted, TurnAppended and "
        "DocumentExposed for returned spans), then update the profile's memory cards and links for the new turns. "
        "Idempotent: the same session and turns again change nothing. Needs `Authorization: Bearer <token>`."
    )
    async def append_session(
        self,
        info: Info,
        profile: strawberry.ID,
        turns: list[TurnInput],
        session_id: str | None = None,
        topic_id: str | None = None,
        started_at: str | None = None,
    ) -> AppendResult:
        return await _append(
            info,
            SessionAppend,
            {
                "profile_id": str(profile),
                "session_id": session_id,
                "topic_id": topic_id,
                "started_at": started_at,
                "turns": [t.as_record() for t in turns],
            },
        )

    @strawberry.mutation(
        description="Append turns to an existing session, continuing its ordinals, then update the profile's memory "
        "incrementally. Idempotent: turns already present with the same content are skipped. Needs the API token."
    )
    async def append_turns(self, info: Info, session: strawberry.ID, turns: list[TurnInput]) -> AppendResult:
        return await _append(info, TurnsAppend, {"session_id": str(session), "turns": [t.as_record() for t in turns]})

    @strawberry.mutation(
        description="Record a person's pass/fail ruling on an attempt's accuracy verdict (event AnswerAdjudicated): "
        "a pending needs_adjudication one, or any counted verdict with `overrule: true`. `judgmentId` defaults to "
        "the counted verdict, `adjudicatedAt` (ISO 8601 UTC) to now. Needs the API token."
    )
    async def adjudicate(
        self,
        info: Info,
        attempt: strawberry.ID,
        verdict: str,
        reason: str,
        adjudicator: str,
        judgment_id: str | None = None,
        adjudicated_at: str | None = None,
        overrule: bool = False,
    ) -> AdjudicationResult:
        return await adjudicate(info, attempt, verdict, reason, adjudicator, judgment_id, adjudicated_at, overrule)
