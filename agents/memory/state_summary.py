"""The state summary S(H) of a profile for MemKB: one LLM call over the whole public history, structured
states (who each concerns, time context, unresolved conditions, source turn ids), written as a
StateSummarized event (State nodes DERIVED_FROM turns). Source turn ids must be turns of the profile;
a reply citing other ids is sent back to the model with the problem."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from agents.history import HistoryTurn, load_public_history, render_history
from agents.llm.client import LLMClient
from agents.prompts.registry import PromptSet
from agents.prompts.template import render_messages
from graph.cypher_files import load_cypher
from graph.errors import UsageError
from graph.events import NewEvent, StateSpec, StateSummarized
from graph.hashing import canonical_json, text_sha256
from graph.store import EventStore

STATE_SYSTEM = "memkb"
MAX_STATES = 30


class StateOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1)
    concerns: str
    time_context: str
    unresolved: list[str]
    source_turn_ids: list[str] = Field(min_length=1)


class StateSummaryOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    states: list[StateOut]


@dataclass(frozen=True)
class SummaryResult:
    profile_id: str
    summary_id: str
    n_states: int
    appended: bool
    cached: bool


def summarize_profile(
    store: EventStore, llm: LLMClient, prompts: PromptSet, profile_id: str, *, max_states: int = MAX_STATES
) -> SummaryResult:
    """Summarise one profile's public history and append the StateSummarized event (a no-op when the same
    summary is already in the log)."""
    turns = load_public_history(store.driver, store.database, profile_id)
    if not turns:
        raise UsageError(f"profile {profile_id!r} has no turns: nothing to summarise")
    template = prompts["state_summary"]
    messages = render_messages(template, history=render_history(turns), max_states=max_states)
    known = {t.turn_id for t in turns}

    def check(out: StateSummaryOut) -> str | None:
        unknown = sorted({tid for s in out.states for tid in s.source_turn_ids if tid not in known})
        if unknown:
            return f"source_turn_ids {unknown} are not turn ids of this history; cite only ids shown in brackets"
        if len(out.states) > max_states:
            return f"{len(out.states)} states; give at most {max_states}"
        return None

    reply = llm.structured(messages, StateSummaryOut, name="state_summary", check=check)
    event = state_event(profile_id, turns, reply.value, model=llm.model, prompt_sha256=template.sha256)
    event = event.model_copy(update={"exchange": reply.exchange})
    event = _reactivating(store, event)
    result = store.append([NewEvent(event, actor=f"state:{llm.model}")])
    return SummaryResult(
        profile_id=profile_id,
        summary_id=event.summary_id,
        n_states=len(event.states),
        appended=result.appended > 0,
        cached=all(r.cached for r in reply.replies),
    )


def _reactivating(store: EventStore, event: StateSummarized) -> StateSummarized:
    """The event to append so that this summary ends up active: as is, or under a revision id when the same
    summary exists but a different one superseded it (re-appending identical content would be a no-op)."""
    with store.driver.session(database=store.database) as session:
        record = session.run(
            load_cypher("agents/summary_status"),
            profile_id=event.profile_id,
            system=event.system,
            prefix=event.summary_id,
        ).single()
    active = record["active_summary_id"] if record else None
    existing = set(record["existing"]) if record else set()
    if active is None or active == event.summary_id or event.summary_id not in existing:
        return event
    if active.startswith(event.summary_id):
        new_id = active
    else:
        revision = 2
        while f"{event.summary_id}-r{revision}" in existing:
            revision += 1
        new_id = f"{event.summary_id}-r{revision}"
    states = _renamed(event.states, event.summary_id, new_id)
    return event.model_copy(update={"summary_id": new_id, "states": states})


def _renamed(states: list[StateSpec], old: str, new: str) -> list[StateSpec]:
    return [s.model_copy(update={"state_id": new + s.state_id[len(old) :]}) for s in states]


def state_event(
    profile_id: str, turns: list[HistoryTurn], out: StateSummaryOut, *, model: str, prompt_sha256: str
) -> StateSummarized:
    """The event for a validated summary; ids derive from its content, so the same summary is one event."""
    history_sha = text_sha256(canonical_json([t.turn_id for t in turns]))
    digest = text_sha256(
        canonical_json(
            {"model": model, "prompt": prompt_sha256, "history": history_sha, "states": out.model_dump(mode="json")}
        )
    )[:12]
    summary_id = f"{STATE_SYSTEM}-{profile_id}-{digest}"
    states = [
        StateSpec(
            state_id=f"{summary_id}-s{i:02d}",
            text=s.text,
            concerns=s.concerns,
            time_context=s.time_context,
            unresolved=list(s.unresolved),
            source_turn_ids=list(dict.fromkeys(s.source_turn_ids)),
        )
        for i, s in enumerate(out.states, start=1)
    ]
    return StateSummarized(
        profile_id=profile_id,
        summary_id=summary_id,
        system=STATE_SYSTEM,
        states=states,
        model=model,
        prompt_sha256=prompt_sha256,
    )
