"""A running ingest is "in progress", not "interrupted" (graph/ingest_lease.py, graph/ingest_status.py): it holds
a lease with its pid and host while it writes; a killed one leaves the lease behind, which reads as interrupted
once older than its expiry (looked at past the expiry with the reader's `now_ms`, so nothing waits for it)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from typing import Any

import pytest

from graph.errors import UsageError
from graph.ingest_lease import IngestLease, lease_seconds
from graph.ingest_status import incomplete_ingest_text, incomplete_ingests
from graph.store import EventStore
from ingest.pipeline import load_input, write_events
from tests.api_support import api_client, data_of, gql
from tests.conftest import REPO
from tests.ingest.test_pipeline import MINI

pytestmark = pytest.mark.neo4j

# A child process that ingests the mini bundle and stops for good after its first batch (before IngestCompleted),
# saying "held" once it is there, so the test can kill it while the ingest is certainly running.
HELD_INGEST = """
import sys, threading
from pathlib import Path
from graph.connection import open_driver
from graph.embeddings import load_encoder
from graph.settings import Neo4jSettings
from graph.store import EventStore
from ingest.pipeline import load_input, write_events

settings = Neo4jSettings()
store = EventStore(open_driver(settings), settings.database, load_encoder())
real_append = store.append
calls = {"n": 0}

def append_then_hold(events):
    calls["n"] += 1
    if calls["n"] == 3:  # IngestStarted and the first batch are in the log
        print("held", flush=True)
        threading.Event().wait()
    return real_append(events)

store.append = append_then_hold
write_events(store, load_input(Path(sys.argv[1])), batch_size=20)
"""


def _lease_nodes(store: EventStore) -> int:
    with store.driver.session(database=store.database) as session:
        return int(session.run("MATCH (l:IngestLease) RETURN count(l) AS n").single()["n"])


def test_a_held_ingest_is_in_progress_with_its_pid_and_host_then_completes_without_a_trace(
    store: EventStore, monkeypatch: pytest.MonkeyPatch, neo4j_settings: Any, encoder: Any
) -> None:
    monkeypatch.setenv("COLABENCH_INGEST_LEASE_S", "45")
    real_append = store.append
    held, release = threading.Event(), threading.Event()
    calls = {"n": 0}

    def append_then_wait(events: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            held.set()
            assert release.wait(300)  # a generous bound on the test's own release
        return real_append(events)

    monkeypatch.setattr(store, "append", append_then_wait)
    failures: list[BaseException] = []

    def ingest() -> None:
        try:
            write_events(store, load_input(MINI), batch_size=20)
        except BaseException as exc:  # surfaced by the assertion below
            failures.append(exc)

    worker = threading.Thread(target=ingest)
    worker.start()
    try:
        assert held.wait(300), "the ingest never reached its second batch"
        [running] = incomplete_ingests(store.driver, store.database)
        assert running["state"] == "in progress" and running["dataset"] == "mini"
        assert (running["lease_pid"], running["lease_host"]) == (os.getpid(), socket.gethostname())
        assert running["lease_expires_after_s"] == 45
        text = incomplete_ingest_text([running])
        assert text is not None and text.startswith("ingest in progress: mini") and "interrupted" not in text
        assert f"pid {os.getpid()}" in text
        # the same lease read past its expiry (as after a kill) would say interrupted
        expired = running["lease_renewed_at"] + 45_000 + 1
        [later] = incomplete_ingests(store.driver, store.database, now_ms=expired)
        assert later["state"] == "interrupted"
        # the API says the same: /readyz and the browser's dataset list
        with api_client(neo4j_settings, store.driver, encoder) as client:
            [ready] = client.get("/readyz").json()["incomplete_ingests"]
            listed = data_of(gql(client, "{ datasets { name complete } }"))["datasets"]
        assert (ready["dataset"], ready["state"]) == ("mini", "in progress")
        assert listed == [{"name": "mini", "complete": False}]
    finally:
        release.set()
        worker.join(300)
    assert failures == []
    assert incomplete_ingests(store.driver, store.database) == []
    assert _lease_nodes(store) == 0  # the lease went with the ingest


def test_an_ingest_stopped_by_an_error_is_interrupted_at_once(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_append = store.append
    calls = {"n": 0}

    def append_then_fail(events: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("the ingest failed")
        return real_append(events)

    monkeypatch.setattr(store, "append", append_then_fail)
    with pytest.raises(RuntimeError):
        write_events(store, load_input(MINI), batch_size=20)
    [stopped] = incomplete_ingests(store.driver, store.database)
    assert stopped["state"] == "interrupted" and stopped["lease_pid"] is None
    assert "was interrupted" in (incomplete_ingest_text([stopped]) or "")


def test_a_killed_ingest_reads_as_interrupted_once_its_lease_expires(store: EventStore, tmp_path: Any) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLABENCH_INGEST_LEASE_S": "30"}
    child = subprocess.Popen(
        [sys.executable, "-c", HELD_INGEST, str(MINI)], env=env, cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "held"
        [running] = incomplete_ingests(store.driver, store.database)
        assert running["state"] == "in progress" and running["lease_pid"] == child.pid
        child.send_signal(signal.SIGKILL)
        child.wait(60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(60)
    # Killed outright, it could not take its lease away: until the expiry nothing tells it from a slow ingest.
    [left] = incomplete_ingests(store.driver, store.database)
    assert left["lease_pid"] == child.pid and left["lease_expires_after_s"] == 30
    [after] = incomplete_ingests(store.driver, store.database, now_ms=left["lease_renewed_at"] + 30_000 + 1)
    assert after["state"] == "interrupted"
    text = incomplete_ingest_text([after]) or ""
    assert "was interrupted" in text and f"its lease from pid {child.pid}" in text and "expiry 30 s" in text
    # the same ingest run again resumes it and completes
    write_events(store, load_input(MINI), batch_size=20)
    assert incomplete_ingests(store.driver, store.database) == []


@pytest.mark.parametrize("raw", ["0", "-3", "soon", "nan"])
def test_a_bad_lease_setting_is_one_clear_error(raw: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLABENCH_INGEST_LEASE_S", raw)
    with pytest.raises(UsageError, match="COLABENCH_INGEST_LEASE_S"):
        lease_seconds()


def test_the_lease_is_left_out_of_the_fingerprint(store: EventStore) -> None:
    from graph.fingerprint import compute_fingerprint

    before = compute_fingerprint(store.driver).digest
    with IngestLease(store.driver, store.database, "ingest-x", "mini", expires_after_s=30):
        assert _lease_nodes(store) == 1
        assert compute_fingerprint(store.driver).digest == before
    assert _lease_nodes(store) == 0
