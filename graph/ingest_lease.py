"""The lease of a running ingest: what tells "in progress" from "interrupted" (graph/ingest_status.py).

An ingest that has appended its `IngestStarted` but not yet its `IngestCompleted` is either still running or
was stopped mid-way (a crash, a kill, Ctrl-C). The running one says so: before its first event it takes an
`:IngestLease` node (ingest id, pid, host, expiry) and a heartbeat thread renews it every third of the expiry;
when the ingest ends, in any way this process sees, the lease goes. A process killed outright leaves its lease
behind, and once the lease is older than its expiry the ingest reads as interrupted. Times are the database's
clock (`timestamp()`), both when renewed and when read, so the machines' clocks do not matter.

The expiry is `COLABENCH_INGEST_LEASE_S` seconds (default 60; the reader takes each lease's own expiry). The
lease is not an event: it describes a process, not the graph, so the fingerprint and `graph rebuild` leave it out.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
from types import TracebackType
from typing import Any

from neo4j import Driver
from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired

from graph.cypher_files import load_cypher
from graph.errors import UsageError

LEASE_ENV = "COLABENCH_INGEST_LEASE_S"
DEFAULT_LEASE_S = 60.0


def lease_seconds() -> float:
    """The expiry of a new lease: COLABENCH_INGEST_LEASE_S, else 60 s."""
    raw = os.environ.get(LEASE_ENV, "").strip()
    if not raw:
        return DEFAULT_LEASE_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value != value or value == float("inf"):
        raise UsageError(f"{LEASE_ENV}={raw!r}: expected a number of seconds above 0")
    return value


class IngestLease:
    """`with IngestLease(driver, database, ingest_id, dataset):` holds the lease while the block runs."""

    def __init__(
        self, driver: Driver, database: str, ingest_id: str, dataset: str, expires_after_s: float | None = None
    ) -> None:
        self.driver = driver
        self.database = database
        self.ingest_id = ingest_id
        self.dataset = dataset
        self.expires_after_s = expires_after_s if expires_after_s is not None else lease_seconds()
        self.pid = os.getpid()
        self.host = socket.gethostname()
        self.holder = f"{self.host}:{self.pid}:{secrets.token_hex(4)}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _run(self, name: str, **extra: Any) -> None:
        with self.driver.session(database=self.database) as session:
            session.run(
                load_cypher(f"ingest/{name}"), ingest_id=self.ingest_id, holder=self.holder, **extra
            ).consume()

    def __enter__(self) -> IngestLease:
        self._run(
            "lease_hold", dataset=self.dataset, pid=self.pid, host=self.host, expires_after_s=self.expires_after_s
        )
        self._thread = threading.Thread(target=self._heartbeat, name=f"ingest-lease-{self.ingest_id}", daemon=True)
        self._thread.start()
        return self

    def _heartbeat(self) -> None:
        interval = self.expires_after_s / 3
        while not self._stop.wait(interval):
            try:
                self._run("lease_renew")
            except (Neo4jError, ServiceUnavailable, SessionExpired, OSError):
                continue  # Neo4j away for a moment: the ingest itself fails or goes on; renew next time

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        # Neo4j gone (likely why the ingest stopped): the lease expires on its own
        with contextlib.suppress(Neo4jError, ServiceUnavailable, SessionExpired, OSError):
            self._run("lease_release")
