"""NEXT links planned per statement (graph/turn_links.py): the same links, with the same seq, whatever the
batch boundaries, the arrival order of a session's turns, or repeated ordinals; and replay rebuilds them."""

from __future__ import annotations

import pytest

from graph.events import NewEvent, ProfileCreated, SessionStarted, TurnAppended
from graph.replay import drop_projection, replay
from graph.store import EventStore

pytestmark = pytest.mark.neo4j

# (session, turn id, ordinal) in log order: s1 arrives out of order, s2 repeats ordinal 1, s3 is in order.
TURNS = (
    ("s1", "a0", 0), ("s1", "a2", 2), ("s2", "b0", 0), ("s1", "a1", 1), ("s2", "b1", 1), ("s3", "c0", 0),
    ("s2", "b1x", 1), ("s1", "a4", 4), ("s3", "c1", 1), ("s1", "a3", 3), ("s2", "b2", 2), ("s3", "c2", 2),
)  # fmt: skip


def _events() -> list[NewEvent]:
    events = [NewEvent(ProfileCreated(profile_id="p", dataset="links"), "test")]
    events += [
        NewEvent(SessionStarted(session_id=s, profile_id="p", ordinal=i), "test")
        for i, s in enumerate(("s1", "s2", "s3"))
    ]
    events += [
        NewEvent(TurnAppended(turn_id=t, session_id=s, ordinal=o, role="user", text=f"turn {t}"), "test")
        for s, t, o in TURNS
    ]
    return events


def _expected() -> set[tuple[str, str, int]]:
    """Every pair of a session's turns with ordinals o and o + 1 is linked once; the link carries the seq of
    the later of the two events (seq 1 is the profile, 2-4 the sessions, turns follow in log order)."""
    seq = {t: 5 + i for i, (_, t, _) in enumerate(TURNS)}
    return {
        (ta, tb, max(seq[ta], seq[tb])) for sa, ta, oa in TURNS for sb, tb, ob in TURNS if sa == sb and ob == oa + 1
    }


def _links(store: EventStore) -> set[tuple[str, str, int]]:
    with store.driver.session() as session:
        rows = session.run("MATCH (a:Turn)-[r:NEXT]->(b:Turn) RETURN a.id AS a, b.id AS b, r.seq AS seq")
        return {(r["a"], r["b"], int(r["seq"])) for r in rows}


@pytest.mark.parametrize("batch", [1, 5, 100])
def test_next_links_do_not_depend_on_batch_boundaries_or_arrival_order(store: EventStore, batch: int) -> None:
    events = _events()
    for start in range(0, len(events), batch):
        store.append(events[start : start + batch])
    assert _links(store) == _expected()


def test_replay_in_pages_rebuilds_the_same_next_links(store: EventStore) -> None:
    store.append(_events())
    drop_projection(store)
    replay(store, page_size=4)
    assert _links(store) == _expected()
