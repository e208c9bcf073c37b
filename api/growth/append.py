"""Appending sessions and turns to a profile as events, then updating that profile's memory incrementally.

Appends are idempotent: turn ids are client-given or derived from content (api.growth.ids), turns already in
the graph with the same content are skipped, and the same id with different content is refused. Ordinals
continue the session's. Everything of one request is one `EventStore.append` (one transaction).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from api.errors import BadInputError, ConflictError, NotFoundError
from api.growth.ids import derive_session_id, derive_turn_ids
from api.growth.models import SessionAppend, TurnIn, TurnsAppend
from graph.cypher_files import load_cypher
from graph.events import NewEvent, SessionStarted, TurnAppended
from graph.store import EventStore
from ingest.bundle.to_events import exposures, tool_call_records


@dataclass
class AppendOutcome:
    """What one append did: ids, events written or skipped, and the memory update that followed."""

    profile_id: str
    session_id: str
    session_created: bool
    turn_ids: list[str]
    appended_turn_ids: list[str]
    events_appended: int
    events_skipped: int
    head_seq: int
    memory_system: str
    memory_counts: dict[str, int] | None = None
    memory_note: str | None = None
    warnings: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class _SessionState:
    profile_id: str
    max_ordinal: int


class ProfileGrowth:
    """Grows profiles through the event store. One instance may be shared by threads: `lock` serialises appends
    (ordinals are read from the graph, so two concurrent appends to one session must not interleave)."""

    def __init__(
        self,
        store: EventStore,
        *,
        actor: str,
        memory_system: str = "raw_turns",
        retriever: Callable[[], Any] | None = None,
        lock: threading.Lock | None = None,
    ) -> None:
        self.store = store
        self.actor = actor
        self.memory_system = memory_system
        self.retriever = retriever
        self.lock = lock or threading.Lock()

    # --- reads -------------------------------------------------------------------------------------

    def _rows(self, name: str, **params: Any) -> list[dict[str, Any]]:
        with self.store.driver.session(database=self.store.database) as session:
            return [record.data() for record in session.run(load_cypher(f"api/growth/{name}"), **params)]

    def _session_state(self, session_id: str) -> _SessionState | None:
        rows = self._rows("session_state", session_id=session_id)
        if not rows:
            return None
        return _SessionState(rows[0]["profile_id"], int(rows[0]["max_ordinal"]))

    # --- public ------------------------------------------------------------------------------------

    def append(self, request: SessionAppend | TurnsAppend) -> AppendOutcome:
        """Append a new session of a profile (SessionAppend) or turns to an existing session (TurnsAppend)."""
        if isinstance(request, SessionAppend):
            return self.append_session(request)
        return self.append_turns(request)

    def append_turns(self, request: TurnsAppend) -> AppendOutcome:
        """Append turns to an existing session (NotFoundError when it does not exist)."""
        with self.lock:
            state = self._session_state(request.session_id)
            if state is None:
                raise NotFoundError(
                    f"no session with id {request.session_id!r}; start one with appendSession (or a record with "
                    "profile_id in the append file)"
                )
            outcome = self._append(state.profile_id, request.session_id, request.turns, None, state.max_ordinal)
        return self._update_memory(outcome)

    def append_session(self, request: SessionAppend) -> AppendOutcome:
        """Start a session of an existing profile with its turns; re-sending it continues the same session."""
        with self.lock:
            profiles = self._rows("profile_state", profile_id=request.profile_id)
            if not profiles:
                raise NotFoundError(f"no profile with id {request.profile_id!r}")
            session_id = request.session_id or derive_session_id(request.profile_id, request.started_at, request.turns)
            state = self._session_state(session_id)
            start: SessionStarted | None = None
            if state is not None:
                if state.profile_id != request.profile_id:
                    raise ConflictError(
                        f"session {session_id!r} already exists and belongs to profile {state.profile_id!r}, "
                        f"not {request.profile_id!r}; choose another session_id"
                    )
                max_ordinal = state.max_ordinal
            else:
                if request.topic_id is not None:
                    owners = self._rows("topic_owner", topic_id=request.topic_id)
                    if not owners or owners[0]["profile_id"] != request.profile_id:
                        raise BadInputError(
                            f"topic {request.topic_id!r} is not a topic of profile {request.profile_id!r}"
                        )
                start = SessionStarted(
                    session_id=session_id,
                    profile_id=request.profile_id,
                    ordinal=int(profiles[0]["n_sessions"]),
                    topic_id=request.topic_id,
                    started_at=request.started_at,
                )
                max_ordinal = -1
            outcome = self._append(request.profile_id, session_id, request.turns, start, max_ordinal)
        return self._update_memory(outcome)

    # --- internals ---------------------------------------------------------------------------------

    def _append(
        self,
        profile_id: str,
        session_id: str,
        turns: list[TurnIn],
        start: SessionStarted | None,
        max_ordinal: int,
    ) -> AppendOutcome:
        started = time.perf_counter()
        ids = derive_turn_ids(session_id, turns)
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise BadInputError(f"turn ids repeat within the request: {', '.join(repeated)}")
        existing = {row["id"]: row for row in self._rows("existing_turns", ids=ids)}
        fresh: list[tuple[str, TurnIn]] = []
        for turn_id, turn in zip(ids, turns, strict=True):
            row = existing.get(turn_id)
            if row is None:
                fresh.append((turn_id, turn))
                continue
            same = (row["session_id"], row["role"], row["text"], row["speaker"], row["at"]) == (
                session_id,
                turn.role,
                turn.text,
                turn.speaker,
                turn.at,
            )
            if not same:
                raise ConflictError(
                    f"turn {turn_id!r} already exists (in session {row['session_id']!r}) with different content; "
                    "send a new turn_id, or omit turn_id to let the server derive one"
                )
        warnings = self._check_spans(profile_id, [t for _, t in fresh])
        events: list[NewEvent] = []
        if start is not None:
            events.append(NewEvent(start, self.actor, start.started_at or (turns[0].at if turns else None)))
        for offset, (turn_id, turn) in enumerate(fresh, start=1):
            events.extend(self._turn_events(session_id, turn_id, max_ordinal + offset, turn))
        if events:
            result = self.store.append(events)
            appended, skipped, head = result.appended, result.skipped, result.head_seq
        else:
            appended, skipped, head = 0, 0, self.store.head().seq
        return AppendOutcome(
            profile_id=profile_id,
            session_id=session_id,
            session_created=start is not None and appended > 0,
            turn_ids=ids,
            appended_turn_ids=[turn_id for turn_id, _ in fresh],
            events_appended=appended,
            events_skipped=skipped + (len(turns) - len(fresh)),
            head_seq=head,
            memory_system=self.memory_system,
            warnings=warnings,
            seconds={"append": time.perf_counter() - started},
        )

    def _turn_events(self, session_id: str, turn_id: str, ordinal: int, turn: TurnIn) -> list[NewEvent]:
        appended = TurnAppended(
            turn_id=turn_id,
            session_id=session_id,
            ordinal=ordinal,
            role=turn.role,
            text=turn.text,
            speaker=turn.speaker,
            at=turn.at,
            tool_calls=tool_call_records(turn.tool_calls),
        )
        return [NewEvent(event, self.actor, turn.at) for event in (appended, *exposures(turn_id, turn.tool_calls))]

    def _check_spans(self, profile_id: str, turns: list[TurnIn]) -> list[str]:
        """Refuse spans of unknown documents or past a document's end; warn about exposed support documents."""
        spans = [span for turn in turns for call in turn.tool_calls for span in call.returned]
        if not spans:
            return []
        doc_ids = sorted({s.doc_id for s in spans})
        bounds = {row["id"]: int(row["n_lines"]) for row in self._rows("document_bounds", ids=doc_ids)}
        problems = []
        for span in spans:
            n_lines = bounds.get(span.doc_id)
            if n_lines is None:
                problems.append(f"document {span.doc_id!r} does not exist")
            elif span.end_line > n_lines:
                problems.append(f"lines {span.start_line}-{span.end_line} of {span.doc_id!r} (it has {n_lines})")
        if problems:
            raise BadInputError("tool call spans do not resolve: " + "; ".join(sorted(set(problems))))
        supported = self._rows("support_documents", profile_id=profile_id, ids=doc_ids)
        return [
            f"document {row['doc_id']!r} is a support document of item(s) {', '.join(row['item_ids'])} of this "
            "profile; exposing it puts their gold evidence into the profile's history"
            for row in supported
        ]

    def _update_memory(self, outcome: AppendOutcome) -> AppendOutcome:
        """Cards and links for turns that lack them (agents.memory.cards.update_profile_memory); no full rebuild."""
        from agents.memory.cards import update_profile_memory

        started = time.perf_counter()
        if self.retriever is None:
            outcome.memory_note = "memory was not updated: no retriever was configured for this append"
            return outcome
        with self.lock:
            counts = update_profile_memory(self.store, self.retriever(), outcome.profile_id, system=self.memory_system)
        outcome.memory_counts = {str(k): int(v) for k, v in dict(counts).items()}
        outcome.seconds["memory"] = time.perf_counter() - started
        return outcome
