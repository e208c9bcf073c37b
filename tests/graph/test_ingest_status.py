"""An interrupted ingest is visible until it is resumed: IngestStarted without IngestCompleted, reported by
graph/ingest_status.py (used by every CLI command that opens the graph, and by /readyz)."""

from __future__ import annotations

from typing import Any

import pytest

from graph.fingerprint import compute_fingerprint
from graph.ingest_status import incomplete_ingest_text, incomplete_ingests
from graph.store import EventStore
from ingest.pipeline import load_input, write_events
from tests.ingest.test_pipeline import MINI

pytestmark = pytest.mark.neo4j


class _Killed(Exception):
    pass


def test_an_ingest_cut_after_its_first_batch_is_reported_until_the_same_ingest_resumes(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_append = store.append
    calls = {"n": 0}

    def append_then_die(events: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:  # IngestStarted, the first batch, then the process "dies"
            raise _Killed()
        return real_append(events)

    monkeypatch.setattr(store, "append", append_then_die)
    with pytest.raises(_Killed):
        write_events(store, load_input(MINI), batch_size=20)
    monkeypatch.setattr(store, "append", real_append)

    unfinished = incomplete_ingests(store.driver, store.database)
    assert [(i["dataset"], i["n_events"] > 20) for i in unfinished] == [("mini", True)]
    text = incomplete_ingest_text(unfinished)
    assert text is not None and "mini" in text and "ingest" in text

    report = write_events(store, load_input(MINI), batch_size=20)
    assert report.appended > 0
    assert incomplete_ingests(store.driver, store.database) == []
    assert incomplete_ingest_text([]) is None
    resumed = compute_fingerprint(store.driver).digest

    # the same input ingested in one go projects the same graph (Ingest node included)
    with store.driver.session() as session:
        session.run("MATCH (n) DETACH DELETE n").consume()
    store.ensure_schema()
    write_events(store, load_input(MINI), batch_size=20)
    assert incomplete_ingests(store.driver, store.database) == []
    assert compute_fingerprint(store.driver).digest == resumed
