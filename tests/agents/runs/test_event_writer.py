"""The run's background event writer (agents/runs/event_writer.py): batches are appended on a thread of its own
in the order they were handed over, each batch whole; a failed append keeps its place in front of everything
handed over after it, and its error reaches the next `append` or `close`."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from agents.runs.event_writer import BackgroundEventWriter
from graph.events import NewEvent, ProfileCreated

BOUND_S = 60.0  # a generous bound on a condition, not a speed target


def _events(*names: str) -> list[NewEvent]:
    return [NewEvent(ProfileCreated(profile_id=name, dataset="unit"), "test") for name in names]


def _ids(batch: Sequence[NewEvent]) -> list[str]:
    return [e.event.profile_id for e in batch]  # type: ignore[attr-defined]


class _Store:
    """Records each append; the first one can be held until `release` is set, and the first `fail` appends
    raise (a Neo4j that went away)."""

    def __init__(self, hold_first: bool = False, fail: int = 0) -> None:
        self.appends: list[list[str]] = []
        self.threads: list[str] = []
        self.calls = 0
        self.started = threading.Event()
        self.release = threading.Event()
        self.hold_first = hold_first
        self.fail = fail
        self.lock = threading.Lock()

    def append(self, events: Sequence[NewEvent]) -> None:
        with self.lock:
            self.calls += 1
            call = self.calls
        if call == 1 and self.hold_first:
            self.started.set()
            assert self.release.wait(BOUND_S)
        if call <= self.fail:
            raise RuntimeError(f"neo4j went away (append {call})")
        with self.lock:
            self.appends.append(_ids(events))
            self.threads.append(threading.current_thread().name)

    @property
    def logged(self) -> list[str]:
        return [i for batch in self.appends for i in batch]


def test_append_returns_while_neo4j_writes_and_batches_keep_their_order_and_stay_whole() -> None:
    store = _Store(hold_first=True)
    writer = BackgroundEventWriter(store)  # type: ignore[arg-type]
    writer.append(_events("a1", "a2", "a3"))
    assert store.started.wait(BOUND_S)  # the first append is in progress on the writer's thread ...
    writer.append(_events("b1", "b2"))  # ... and the next attempts hand over theirs without waiting for it
    writer.append(_events("c1"))
    assert store.appends == []
    store.release.set()
    writer.close()
    assert store.logged == ["a1", "a2", "a3", "b1", "b2", "c1"]
    # every batch is inside one append (one transaction), never split across two
    for batch in (["a1", "a2", "a3"], ["b1", "b2"], ["c1"]):
        assert any(batch == append[i : i + len(batch)] for append in store.appends for i in range(len(append)))
    assert set(store.threads) == {"attempt-events"}


def test_batches_from_many_threads_are_logged_in_the_order_they_were_handed_over() -> None:
    store = _Store()
    writer = BackgroundEventWriter(store, max_queued=3)  # type: ignore[arg-type]
    handed: list[str] = []
    order = threading.Lock()

    def attempt(n: int) -> None:
        for k in range(20):
            with order:  # the hand-over order is the order this list records
                ids = [f"t{n}-{k}-{part}" for part in ("started", "answer", "finished")]
                writer.append(_events(*ids))
                handed.extend(ids)

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.close()
    assert store.logged == handed
    assert len(handed) == 4 * 20 * 3


def test_a_failed_append_is_raised_by_the_next_append_and_nothing_later_is_written_before_it() -> None:
    store = _Store(fail=1)
    writer = BackgroundEventWriter(store)  # type: ignore[arg-type]
    writer.append(_events("a"))
    assert writer.wait_idle(BOUND_S)  # the writer's append of "a" has failed: its error waits for the next append
    assert store.calls == 1 and store.logged == []
    with pytest.raises(RuntimeError, match="went away"):
        writer.append(_events("b"))
    writer.close()
    assert store.logged == ["a", "b"]  # the failed batch was appended again, before what came after it


def test_close_raises_a_failed_append_after_appending_what_it_held_back() -> None:
    store = _Store(fail=1)
    writer = BackgroundEventWriter(store)  # type: ignore[arg-type]
    writer.append(_events("a"))
    with pytest.raises(RuntimeError, match="went away"):
        writer.close()
    assert store.logged == ["a"]
    writer.append(_events("late"))  # after close: appended at once, in the caller's thread
    assert store.logged == ["a", "late"]
    assert store.threads[-1] == threading.current_thread().name


def test_close_without_raising_still_appends_what_is_held_back() -> None:
    store = _Store(fail=1)
    writer = BackgroundEventWriter(store)  # type: ignore[arg-type]
    writer.append(_events("a", "b"))
    writer.close(raise_error=False)  # another error is on its way out: this one does not replace it
    assert store.logged == ["a", "b"]


def test_an_error_in_the_final_append_too_is_raised_as_the_first_failure() -> None:
    store = _Store(fail=2)
    writer = BackgroundEventWriter(store)  # type: ignore[arg-type]
    writer.append(_events("a"))
    with pytest.raises(RuntimeError, match=r"append 1\)"):
        writer.close()
    assert store.logged == []
