"""Update points from LongMemEval knowledge-update questions: the question's evidence (`has_answer` turns) sits
in two or more sessions, the earlier ones stating a value the latest one changes. Each evidence session becomes
a private Fact of the question's profile (text = its `has_answer` user turns, or all its `has_answer` turns when
none is a user turn; category `knowledge-update`) disclosed by those turns, and every such fact but the first
names the one before it in metadata `supersedes`: the update points of `eval memory` (agents/memory_quality/
points.py). Sessions are ordered by date (haystack order when a date is missing). Facts hold history text
only, never the question or the answer."""

from __future__ import annotations

from dataclasses import dataclass

from graph.events import DomainEvent, FactDisclosed, FactRecorded

KNOWLEDGE_UPDATE = "knowledge-update"


@dataclass(frozen=True)
class EvidenceTurn:
    session_id: str
    session_iso: str | None
    session_index: int
    turn_id: str
    role: str
    text: str


def update_fact_events(profile_id: str, evidence: list[EvidenceTurn]) -> list[DomainEvent]:
    """FactRecorded + FactDisclosed events of one knowledge-update question ([] when its evidence is in fewer
    than two sessions: no change to point at)."""
    sessions: dict[str, list[EvidenceTurn]] = {}
    for turn in evidence:
        sessions.setdefault(turn.session_id, []).append(turn)
    if len(sessions) < 2:
        return []
    dated = all(turns[0].session_iso is not None for turns in sessions.values())
    order = sorted(
        sessions.values(),
        key=lambda ts: (ts[0].session_iso or "", ts[0].session_index) if dated else (ts[0].session_index,),
    )
    events: list[DomainEvent] = []
    previous: str | None = None
    for n, turns in enumerate(order):
        stated = [t for t in turns if t.role == "user"] or turns
        fact_id = f"{profile_id}:ku{n}"
        events.append(
            FactRecorded(
                fact_id=fact_id,
                profile_id=profile_id,
                text="\n".join(" ".join(t.text.split()) for t in stated),
                category=KNOWLEDGE_UPDATE,
                metadata={"supersedes": previous, "session_id": turns[0].session_id}
                if previous
                else {"session_id": turns[0].session_id},
            )
        )
        events += [FactDisclosed(fact_id=fact_id, turn_id=t.turn_id) for t in stated]
        previous = fact_id
    return events
