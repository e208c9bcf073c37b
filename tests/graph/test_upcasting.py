"""Event schema versions: a log exported before AttemptFinished / RunFinished were split (v1, no
`schema_version`) imports with today's code, verifies, and projects as today's events would (the failed try
as AttemptFailed, the unfinished pass as RunLeftIncomplete), also after a rebuild."""

from __future__ import annotations

import pytest

from graph.events import AttemptFailed, AttemptFinished, RunFinished, RunLeftIncomplete
from graph.fingerprint import compute_fingerprint
from graph.integrity import verify_chain
from graph.replay import drop_projection, replay
from graph.store import EventStore
from graph.stored_event import StoredEvent
from graph.transfer import import_log, read_log_file
from graph.upcasting import upcast
from tests.graph_counts import count
from tests.paths import FIXTURES

V1_LOG = FIXTURES / "logs" / "v1_run_log.jsonl"
ATTEMPT = "mini-v1log-hybrid:i-mini-01"


def test_v1_events_read_as_their_current_form() -> None:
    events = read_log_file(V1_LOG)
    assert all(e.schema_version == 1 for e in events)  # the file has no schema_version field
    assert verify_chain(events).ok
    read = [e.domain_event() for e in events if e.type in ("AttemptFinished", "RunFinished")]
    assert [type(e) for e in read] == [AttemptFailed, RunLeftIncomplete, AttemptFinished, RunFinished]
    failed = read[0]
    assert isinstance(failed, AttemptFailed) and failed.error.startswith("answerer: HTTP 500")
    assert upcast("AttemptFinished", 2, {"attempt_id": "a"}) == ("AttemptFinished", 2, {"attempt_id": "a"})


def test_a_newer_version_than_this_code_reads_is_refused_by_name() -> None:
    from graph.errors import UnknownEventTypeError

    with pytest.raises(UnknownEventTypeError, match="newer colabench"):
        upcast("RunFinished", 3, {"run_id": "r"})


@pytest.mark.neo4j
def test_a_v1_log_imports_projects_and_rebuilds_as_todays_events(store: EventStore) -> None:
    imported, present = import_log(store, V1_LOG)
    assert (imported, present) == (86, 0)
    d = store.driver
    assert count(d, "MATCH (a:Attempt {id: $a, status: 'answered'}) RETURN count(a)", a=ATTEMPT) == 1
    assert count(d, "MATCH (r:Run {id: 'mini-v1log-hybrid', status: 'finished'}) RETURN count(r)") == 1
    assert verify_chain(store.read(), expected_head=store.head().hash).ok
    before = compute_fingerprint(d)
    drop_projection(store)
    replay(store, page_size=3)  # the failed try and the answer can share a replay page
    assert compute_fingerprint(d).digest == before.digest
    # events written today carry their version, covered by the chain
    from graph.events import NewEvent, RunStarted

    store.append(
        [
            NewEvent(
                RunStarted(
                    run_id="mini-today-hybrid",
                    method="HYBRID",
                    dataset="mini",
                    batch_id="mini-today",
                    item_ids=["i-mini-01"],
                    dataset_fingerprint="0" * 64,
                    dataset_head_seq=80,
                ),
                actor="test",
            ),
            NewEvent(RunFinished(run_id="mini-today-hybrid", counts={"items": 1}), actor="test"),
        ]
    )
    stored: list[StoredEvent] = list(store.read(types=["RunFinished"]))
    assert [e.schema_version for e in stored] == [1, 1, 2]
    assert verify_chain(store.read(), expected_head=store.head().hash).ok
