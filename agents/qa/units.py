"""Retrieval units of a history: a round (a user turn with the assistant reply it got, LongMemEval's
recommended unit, so evidence the assistant stated can be retrieved) or a whole session. A unit's id is its
first turn's id (round) or the session id, so it points back to the graph."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

from agents.qa.history import HistorySession, HistoryTurn

Granularity = Literal["round", "session"]
GRANULARITIES: tuple[str, ...] = ("round", "session")


class HistoryUnit(BaseModel):
    unit_id: str
    session_id: str
    session_ordinal: int
    started_at: str | None = None
    day: date | None = None
    turns: list[HistoryTurn] = Field(default_factory=list)

    @property
    def text(self) -> str:
        """The unit's conversation as plain lines (its default index key)."""
        return "\n".join(f"{t.role}: {t.text}" for t in self.turns)

    @property
    def turn_ids(self) -> list[str]:
        return [t.turn_id for t in self.turns]


def build_units(sessions: Sequence[HistorySession], granularity: str) -> list[HistoryUnit]:
    """Units of these sessions in history order; empty sessions give none."""
    units: list[HistoryUnit] = []
    for session in sessions:
        groups = ([session.turns] if session.turns else []) if granularity == "session" else _rounds(session.turns)
        for turns in groups:
            unit_id = session.session_id if granularity == "session" else turns[0].turn_id
            units.append(
                HistoryUnit(
                    unit_id=unit_id,
                    session_id=session.session_id,
                    session_ordinal=session.ordinal,
                    started_at=session.started_at,
                    day=session.day,
                    turns=list(turns),
                )
            )
    return units


def _rounds(turns: Sequence[HistoryTurn]) -> list[list[HistoryTurn]]:
    """A round starts at each user turn and takes the turns up to the next user turn (the replies); leading
    assistant turns form a round of their own."""
    rounds: list[list[HistoryTurn]] = []
    for turn in turns:
        if turn.role == "user" or not rounds:
            rounds.append([turn])
        else:
            rounds[-1].append(turn)
    return rounds
