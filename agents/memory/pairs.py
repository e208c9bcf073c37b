"""The units every LLM-built memory system takes in: the public user-assistant pairs of a profile's history.

Definition: in each session, in turn order, a pair is a user turn and the assistant turns that follow it up to
(not including) the next user turn. Assistant turns before a session's first user turn form a pair of their
own. Turns of other roles (none in the bundled data) join the pair they fall in. A pair's id is the id of its
first turn; its turn ids are every turn of the pair, in order.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.history import HistoryTurn


@dataclass(frozen=True)
class HistoryPair:
    pair_id: str
    session_id: str
    session_ordinal: int
    turns: tuple[HistoryTurn, ...]

    @property
    def turn_ids(self) -> list[str]:
        return [t.turn_id for t in self.turns]

    @property
    def at(self) -> str | None:
        """The time of the pair: its first timed turn, else the session's start."""
        for turn in self.turns:
            if turn.at:
                return turn.at
        return self.turns[0].started_at

    def messages(self) -> list[dict[str, str]]:
        """The pair as chat messages (role user / assistant), texts verbatim; empty turns left out."""
        out: list[dict[str, str]] = []
        for turn in self.turns:
            if turn.text.strip():
                role = "user" if turn.role == "user" else "assistant"
                out.append({"role": role, "content": turn.text})
        return out

    def user_text(self) -> str:
        return "\n".join(t.text for t in self.turns if t.role == "user" and t.text.strip())


def history_pairs(turns: list[HistoryTurn]) -> list[HistoryPair]:
    """The pairs of a history given in session and turn order (see the module docstring)."""
    pairs: list[HistoryPair] = []
    current: list[HistoryTurn] = []

    def flush() -> None:
        if current:
            first = current[0]
            pairs.append(HistoryPair(first.turn_id, first.session_id, first.session_ordinal, tuple(current)))
            current.clear()

    for turn in turns:
        if current and (turn.session_id != current[0].session_id or turn.role == "user"):
            flush()
        current.append(turn)
    flush()
    return pairs
