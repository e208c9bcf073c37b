"""Claims that let several `run` processes (workers, on one machine or many, over one graph) share a batch.

Before a worker answers an attempt it claims it: an AttemptClaimed event appended under a guard that reads the
attempt's latest claim inside the append's transaction, after the log's write lock is taken, so two workers can
never both hold one attempt. A claim expires `ttl_s` seconds after it was taken or renewed; a heartbeat thread
renews the claims of the attempts in flight every third of that. A worker that dies stops renewing, and after
the expiry another worker takes its attempts over. Every write of a claimed attempt (answer, verdicts, failures)
goes through a store whose appends are refused once the claim belongs to someone else (ClaimLost), so an
attempt is never answered or judged twice. After its work on an attempt the worker releases the claim.

Clocks: expiry times are compared with the claiming worker's clock (UTC), so the machines' clocks must agree to
well within the TTL (NTP does).
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import ManagedTransaction

from graph.cypher_files import load_cypher
from graph.errors import ColabenchError
from graph.events import AttemptClaimed, NewEvent
from graph.store import AppendGuard, AppendResult, EventStore

DEFAULT_TTL_S = 300.0


class ClaimLost(ColabenchError):
    """A write of an attempt was refused: its claim now belongs to another worker (this worker's expired)."""


@dataclass(frozen=True)
class ClaimState:
    """An attempt's latest claim (worker, claimed / renewed / released, expiry) and the attempt's status."""

    attempt_id: str
    worker: str | None
    state: str | None
    expires_at: datetime | None
    status: str | None

    def held_by_other(self, worker: str, now: datetime) -> bool:
        """Another worker holds it: its claim is neither released nor expired."""
        return (
            self.worker is not None
            and self.worker != worker
            and self.state != "released"
            and self.expires_at is not None
            and self.expires_at > now
        )


def default_worker_id() -> str:
    """`<host>:<pid>:<random>`: unique per process, and says where a claim's worker ran."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(2)}"


def _parse_time(text: Any) -> datetime | None:
    if not text:
        return None
    moment = datetime.fromisoformat(str(text))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Claims:
    """One worker's claims over a store. `clock` returns the current UTC time (tests may shift it)."""

    def __init__(
        self,
        store: EventStore,
        *,
        worker: str | None = None,
        ttl_s: float = DEFAULT_TTL_S,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        if ttl_s <= 0:
            raise ColabenchError(f"the claim TTL must be positive (got {ttl_s})")
        self.store = store
        self.worker = worker or default_worker_id()
        self.ttl_s = float(ttl_s)
        self.clock = clock
        self._held: dict[str, tuple[str, str]] = {}  # attempt id -> (run id, item id)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._heartbeat: threading.Thread | None = None
        self.taken_over = 0  # attempts this worker claimed from a worker whose claim had expired
        self.renewals = 0

    # --- reading -------------------------------------------------------------------------------------------

    def states(self, attempt_ids: Sequence[str]) -> dict[str, ClaimState]:
        with self.store.driver.session(database=self.store.database) as session:
            rows = list(session.run(load_cypher("agents/claim_state"), attempt_ids=list(attempt_ids)))
        return {r["attempt_id"]: self._state(r) for r in rows}

    @staticmethod
    def _state(record: Any) -> ClaimState:
        return ClaimState(
            attempt_id=record["attempt_id"],
            worker=record["worker"],
            state=record["state"],
            expires_at=_parse_time(record["expires_at"]),
            status=record["status"],
        )

    def _read_in(self, tx: ManagedTransaction, attempt_id: str) -> ClaimState | None:
        record = tx.run(load_cypher("agents/claim_state"), attempt_ids=[attempt_id]).single()
        return None if record is None else self._state(record)

    def progress(self, attempt_id: str) -> dict[str, Any]:
        """The attempt's progress as run_progress reports it, read now (empty when it was never started)."""
        with self.store.driver.session(database=self.store.database) as session:
            record = session.run(load_cypher("agents/attempt_progress"), attempt_id=attempt_id).single()
        return dict(record["attempt"]) if record is not None else {}

    # --- claiming ------------------------------------------------------------------------------------------

    def _event(self, run_id: str, item_id: str, attempt_id: str, state: str, worker: str | None = None) -> NewEvent:
        now = self.clock()
        expires = now if state == "released" else now + timedelta(seconds=self.ttl_s)
        return NewEvent(
            AttemptClaimed(
                attempt_id=attempt_id,
                run_id=run_id,
                item_id=item_id,
                worker=worker or self.worker,
                state=state,  # type: ignore[arg-type]
                claimed_at=now.isoformat(timespec="microseconds"),
                expires_at=expires.isoformat(timespec="microseconds"),
                ttl_s=self.ttl_s,
            ),
            actor=f"worker:{self.worker}",
            occurred_at=now.isoformat(timespec="microseconds"),
        )

    def claim(self, run_id: str, item_id: str, attempt_id: str) -> bool:
        """Claim the attempt unless another worker holds it (atomic: checked inside the append)."""
        took_over = False

        def free(tx: ManagedTransaction) -> bool:
            nonlocal took_over
            current = self._read_in(tx, attempt_id)
            if current is None:
                return True
            if current.held_by_other(self.worker, self.clock()):
                return False
            took_over = current.worker not in (None, self.worker) and current.state != "released"
            return True

        result = self.store.append([self._event(run_id, item_id, attempt_id, "claimed")], guard=free)
        if result.refused:
            return False
        with self._lock:
            self._held[attempt_id] = (run_id, item_id)
            if took_over:
                self.taken_over += 1
        return True

    def mine(self, attempt_id: str) -> AppendGuard:
        """A guard passing while this worker's claim on the attempt is the latest and not released."""

        def check(tx: ManagedTransaction) -> bool:
            current = self._read_in(tx, attempt_id)
            return current is not None and current.worker == self.worker and current.state != "released"

        return check

    def release(self, attempt_id: str) -> None:
        """Give the claim back (only if it is still this worker's)."""
        with self._lock:
            held = self._held.pop(attempt_id, None)
        if held is not None:
            self.store.append([self._event(held[0], held[1], attempt_id, "released")], guard=self.mine(attempt_id))

    def release_for(self, worker: str, run_id: str, item_id: str, attempt_id: str) -> bool:
        """Release the claim `worker` holds on the attempt, on its behalf: a worker this process has stopped for
        good (a Ray actor it killed), so that a rerun need not wait for the claim's expiry. Safe even if that
        worker is still running: its writes need its claim (ClaimLost from then on). Returns whether it held it."""

        def held_by_it(tx: ManagedTransaction) -> bool:
            current = self._read_in(tx, attempt_id)
            return current is not None and current.worker == worker and current.state != "released"

        event = self._event(run_id, item_id, attempt_id, "released", worker=worker)
        return not self.store.append([event], guard=held_by_it).refused

    def renew(self) -> int:
        """Extend every claim held; a claim another worker has taken meanwhile is dropped. Returns renewals."""
        with self._lock:
            held = dict(self._held)
        renewed = 0
        for attempt_id, (run_id, item_id) in held.items():
            result = self.store.append(
                [self._event(run_id, item_id, attempt_id, "renewed")], guard=self.mine(attempt_id)
            )
            if result.refused:
                with self._lock:
                    self._held.pop(attempt_id, None)
            else:
                renewed += 1
        self.renewals += renewed
        return renewed

    def store_for(self, attempt_id: str) -> EventStore:
        """The store to write this attempt's events with: appends are refused (ClaimLost) unless the claim
        is still this worker's."""
        return ClaimedStore(self.store, self.mine(attempt_id), attempt_id)

    # --- heartbeat -----------------------------------------------------------------------------------------

    def start(self) -> Claims:
        """Renew held claims every ttl/3 in a daemon thread until `stop`."""
        if self._heartbeat is None:
            self._stop.clear()
            self._heartbeat = threading.Thread(target=self._beat, name="claim-heartbeat", daemon=True)
            self._heartbeat.start()
        return self

    def _beat(self) -> None:
        while not self._stop.wait(self.ttl_s / 3):
            try:
                self.renew()
            except Exception:  # a failed renewal is retried at the next beat; writes stay guarded
                continue

    def stop(self) -> None:
        self._stop.set()
        if self._heartbeat is not None:
            self._heartbeat.join(timeout=5)
            self._heartbeat = None

    def __enter__(self) -> Claims:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ClaimedStore(EventStore):
    """The event store for one claimed attempt: every append also needs the claim to be this worker's."""

    def __init__(self, base: EventStore, guard: AppendGuard, attempt_id: str) -> None:
        super().__init__(base.driver, base.database, base.encoder)
        self._guard = guard
        self._attempt_id = attempt_id

    def append(self, events: Sequence[NewEvent], guard: AppendGuard | None = None) -> AppendResult:
        def both(tx: ManagedTransaction) -> bool:
            return self._guard(tx) and (guard is None or guard(tx))

        result = super().append(events, guard=both)
        if result.refused:
            raise ClaimLost(
                f"attempt {self._attempt_id}: another worker took it over (this worker's claim expired); "
                "what this worker found for it is dropped"
            )
        return result
