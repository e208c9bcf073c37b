"""The QA loops' buffered event writer (agents/qa/runner.py): due batches are appended on a thread of their own,
one at a time and in order; a failed batch is kept and its error reaches the loop."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from agents.qa.runner import _BufferedWriter
from graph.events import NewEvent, ProfileCreated


def _events(*names: str) -> list[NewEvent]:
    return [NewEvent(ProfileCreated(profile_id=name, dataset="unit"), "test") for name in names]


def _ids(batch: list[NewEvent]) -> list[str]:
    return [e.event.profile_id for e in batch]  # type: ignore[attr-defined]


class _Store:
    """Records each appended batch; the first append can be held until `release` is set, or fail."""

    def __init__(self, hold_first: bool = False, fail_first: bool = False) -> None:
        self.batches: list[list[str]] = []
        self.started = threading.Event()
        self.release = threading.Event()
        self.hold_first = hold_first
        self.fail_first = fail_first
        self.released_before_return: list[bool] = []

    def append(self, events: list[NewEvent], guard: Any = None) -> None:
        first = not self.batches and not self.released_before_return
        if first and self.hold_first:
            self.started.set()
            self.released_before_return.append(self.release.wait(30))
        if first and self.fail_first:
            self.released_before_return.append(True)
            raise RuntimeError("neo4j went away")
        self.batches.append(_ids(events))


def test_a_due_batch_is_written_while_the_loop_goes_on_and_batches_keep_their_order() -> None:
    store = _Store(hold_first=True)
    writer = _BufferedWriter(store, every_s=0.0)  # type: ignore[arg-type]
    writer.add(_events("a", "b"))  # handed over: the loop does not wait for Neo4j
    assert store.started.wait(30)
    assert writer.pending == []
    store.release.set()
    writer.add(_events("c"))  # waits for the batch in flight, then hands over its own
    writer.flush()
    assert store.batches == [["a", "b"], ["c"]]
    assert store.released_before_return == [True]


def test_a_failed_batch_goes_back_in_front_and_its_error_reaches_the_loop() -> None:
    store = _Store(fail_first=True)
    writer = _BufferedWriter(store, every_s=0.0)  # type: ignore[arg-type]
    writer.add(_events("a"))
    with pytest.raises(RuntimeError, match="went away"):
        writer.add(_events("b"))
    assert _ids(writer.pending) == ["a", "b"]
    writer.flush()  # the caller's final flush appends what is pending
    assert store.batches == [["a", "b"]]


def test_an_error_found_by_the_final_flush_is_raised_after_the_rest_is_appended() -> None:
    store = _Store(fail_first=True)
    writer = _BufferedWriter(store, every_s=0.0)  # type: ignore[arg-type]
    writer.add(_events("a"))
    writer.every_s = 3600.0  # nothing more is due: "b" stays pending
    writer.add(_events("b"))  # not due: the failed batch is not looked at yet
    with pytest.raises(RuntimeError, match="went away"):
        writer.flush()
    assert store.batches == [["a", "b"]]
    assert writer.pending == []
