"""Asking one synthesis role: its prompt rendered from its typed view only, the reply parsed into the role's
output model and checked; an invalid reply is re-asked with the problem (by the LLM client) and, when it stays
invalid, returned as a problem for the caller to record as a rejected draft (never a half-written record)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from agents.llm.errors import LLMOutputError
from agents.prompts.template import render_messages
from agents.synthesis.context import SynthContext
from graph.events import SynthesisDraftRecorded
from graph.json_values import json_value_problem

T = TypeVar("T", bound=BaseModel)


class View(BaseModel):
    """Base of every role's view: the only data its prompt is rendered from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def render(self) -> str:
        return self.model_dump_json(indent=1)


@dataclass(frozen=True)
class RoleOutcome(Generic[T]):
    value: T | None
    problem: str | None = None
    # The exchange of the (last) reply, valid or not: what a draft event recording this outcome references.
    exchange: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def ask(
    ctx: SynthContext,
    *,
    stage: str,
    role: str,
    prompt: str,
    view: View,
    output: type[T],
    check: Callable[[T], str | None] | None = None,
    extra: dict[str, str] | None = None,
) -> RoleOutcome[T]:
    """One structured call of `role` with its view (and `extra` placeholder values, e.g. a reviewer's problems
    for a revision). Endpoint outages raise (LLMError): the stage stops and a rerun resumes it."""
    messages = render_messages(ctx.prompts[prompt], view=view.render(), **(extra or {}))
    client = ctx.client(stage, role)
    try:
        reply = client.structured(
            messages, output, name=output.__name__, check=_replayable(check), max_tokens=ctx.config.caps[role]
        )
    except LLMOutputError as exc:
        return RoleOutcome(None, str(exc), exc.exchange)
    return RoleOutcome(reply.value, exchange=reply.exchange)


def _replayable(check: Callable[[T], str | None] | None) -> Callable[[T], str | None]:
    """`check`, after refusing what the log could not store as it is (NaN, Infinity: a JSON reply may spell
    them): such a reply is re-asked like any invalid one instead of failing when its events are made."""

    def checked(value: T) -> str | None:
        problem = json_value_problem(value.model_dump())
        if problem is not None:
            return str(problem)
        return check(value) if check is not None else None

    return checked


def close_unit(
    ctx: SynthContext,
    *,
    stage: str,
    role: str,
    subject: str,
    outcome: str,
    reasons: list[str],
    details: dict[str, object] | None = None,
    exchange: str | None = None,
) -> str:
    """Record the final outcome of a unit that ends without records of its own; returns the outcome (for the
    stage's report)."""
    ctx.append(
        [
            draft_event(
                ctx,
                stage=stage,
                role=role,
                subject=subject,
                outcome=outcome,
                final=True,
                reasons=reasons,
                details=details,
                exchange=exchange,
            )
        ]
    )
    return outcome


def draft_id(synthesis_id: str, stage: str, subject: str, role: str, revision: int, outcome: str) -> str:
    """Deterministic: the same outcome of the same unit, role and revision is one event on a rerun."""
    digest = hashlib.sha256(f"{synthesis_id}|{stage}|{subject}|{role}|{revision}|{outcome}".encode()).hexdigest()
    return f"draft-{digest[:20]}"


def draft_event(
    ctx: SynthContext,
    *,
    stage: str,
    role: str,
    subject: str,
    outcome: str,
    revision: int = 0,
    final: bool = False,
    reasons: list[str] | None = None,
    details: dict[str, object] | None = None,
    exchange: str | None = None,
) -> tuple[str, SynthesisDraftRecorded]:
    """A (role, event) pair recording one outcome of a draft, for `SynthContext.append`."""
    return (
        role,
        SynthesisDraftRecorded(
            draft_id=draft_id(ctx.synthesis_id, stage, subject, role, revision, outcome),
            synthesis_id=ctx.synthesis_id,
            stage=stage,
            role=role,
            subject=subject,
            revision=revision,
            outcome=outcome,  # type: ignore[arg-type]
            final=final,
            reasons=[r[:2000] for r in (reasons or [])],
            details=dict(details or {}),
            exchange=exchange,
        ),
    )
