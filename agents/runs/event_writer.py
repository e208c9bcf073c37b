"""Writing a run's attempt events behind the attempts: a background writer appends each attempt's events on a
thread of its own while the next attempt's requests are in flight (the batch's attempt loop would otherwise wait
for Neo4j between one reply and the next request).

What it keeps of appending in the attempt itself:
- order: batches are appended in the order they were handed over, one append at a time; batches waiting while an
  append runs go into the next append together, whole (an attempt's answer events stay in one transaction);
- errors: a failed append is kept, in front of everything handed over after it (nothing later is written before
  it), and its error is raised by the next `append` (whose events are kept behind it) or by `close`;
- the end: `close` waits for every batch handed over and appends what a failure held back, so what `execute_batch`
  reads when it ends the runs is all written. A killed process loses the batches still queued: those attempts
  left no trace in the log, so the rerun answers them again (never twice).
After `close`, `append` writes at once (an attempt still finishing after Ctrl-C's grace period).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence

from graph.events import NewEvent
from graph.store import EventStore


class BackgroundEventWriter:
    """Appends handed-over batches to `store` on one background thread, in order (thread-safe: the batch's
    attempt threads all hand over to one writer). At most `max_queued` batches wait; a further `append` waits
    for room, so a slow Neo4j slows the attempts instead of piling up events a kill would lose."""

    def __init__(self, store: EventStore, *, max_queued: int = 64, name: str = "attempt-events") -> None:
        self.store = store
        self.max_queued = max_queued
        # what the background appends took, summed, and how many there were (for the caller's figures)
        self.append_seconds = 0.0
        self.appends = 0
        self._cond = threading.Condition()
        self._queue: deque[list[NewEvent]] = deque()
        self._busy = False  # an append is in progress
        self._error: BaseException | None = None
        self._stopping = False
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def append(self, events: Sequence[NewEvent]) -> None:
        """Hand the events over (one batch, appended whole); raises the error of an earlier failed append,
        with these events kept behind the failed ones."""
        batch = list(events)
        if not batch:
            return
        with self._cond:
            while not self._closed and self._error is None and len(self._queue) >= self.max_queued:
                self._cond.wait()
            if not self._closed:
                self._queue.append(batch)
                error, self._error = self._error, None
                self._cond.notify_all()
        if self._closed:
            self.store.append(batch)
            return
        if error is not None:
            raise error

    def wait_idle(self, timeout_s: float | None = None) -> bool:
        """Wait until every batch handed over is appended, or an append failed (its error then waits for the next
        `append` or `close`); False if `timeout_s` passed first."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self._error is not None or (not self._queue and not self._busy), timeout=timeout_s
            )

    def close(self, *, raise_error: bool = True) -> None:
        """Wait for every batch handed over; then append, in one transaction, what a failed append held back,
        and raise that failure's error (with `raise_error`; otherwise only what is appended changes)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join()
        with self._cond:
            self._closed = True
            error, self._error = self._error, None
            rest = [e for batch in self._queue for e in batch]
            self._queue.clear()
            self._cond.notify_all()
        try:
            if rest:
                self.store.append(rest)
        except BaseException:
            if error is None and raise_error:
                raise
        if error is not None and raise_error:
            raise error

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopping and (not self._queue or self._error is not None):
                    self._cond.wait()
                if not self._queue or self._error is not None:
                    return  # stopping, and nothing this thread may append
                taken = list(self._queue)
                self._queue.clear()
                self._busy = True
                self._cond.notify_all()  # room for appends waiting on max_queued
            failure: BaseException | None = None
            started = time.perf_counter()
            try:
                self.store.append([e for batch in taken for e in batch])
            except BaseException as exc:  # raised in an attempt's thread by the next append, or by close
                failure = exc
            with self._cond:
                self.append_seconds += time.perf_counter() - started
                self.appends += 1
                self._busy = False
                if failure is not None:
                    self._queue.extendleft(reversed(taken))
                    self._error = failure
                self._cond.notify_all()
