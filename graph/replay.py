"""Rebuild the projection from the log: drop every projected node, then replay events in seq order."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from neo4j import ManagedTransaction

from graph.cypher_files import load_cypher, load_statements
from graph.events import StoredEvent
from graph.projection import project_events
from graph.store import EventStore


@dataclass(frozen=True)
class ReplayResult:
    events: int
    seconds: float


def drop_projection(store: EventStore) -> None:
    """Delete every projected node and relationship; keep the log. The vector and full-text indexes are
    dropped too: `replay` creates them again once the graph is complete and waits until they are online
    (one population is ~40% faster than updating them in every replayed transaction). Should the replay
    stop half-way, the next command that opens the store with a schema check creates them again."""
    with store.driver.session(database=store.database) as session:
        session.run(load_cypher("admin/delete_projection")).consume()
        for statement in load_statements("admin/drop_search_indexes"):
            session.run(statement).consume()
        session.run(load_cypher("admin/delete_meta")).consume()
    store.create_schema(search_indexes=False)


def replay(
    store: EventStore,
    page_size: int = 5000,
    progress: Callable[[int], None] | None = None,
    index_timeout_s: int = 3600,
    on_indexing: Callable[[], None] | None = None,
) -> ReplayResult:
    """Project every event of the log again, page by page, each page in one transaction. A reader
    thread fetches the next page while the current one is projected. Ends by creating the search indexes
    and waiting (at most `index_timeout_s`) until they are populated; that wait is part of the time."""
    started = time.perf_counter()
    pages: queue.Queue[list[StoredEvent] | BaseException | None] = queue.Queue(maxsize=2)

    def read_pages() -> None:
        try:
            for page in store.read_for_replay(page_size=page_size):
                pages.put(page)
            pages.put(None)
        except BaseException as exc:  # handed to the projecting thread, which re-raises it
            pages.put(exc)

    reader = threading.Thread(target=read_pages, name="replay-reader", daemon=True)
    reader.start()
    total = 0
    while True:
        item = pages.get()
        if item is None:
            break
        if isinstance(item, BaseException):
            raise item
        _project_page(store, item)
        total += len(item)
        if progress:
            progress(len(item))
    reader.join()
    if on_indexing:
        on_indexing()
    store.create_schema()
    with store.driver.session(database=store.database) as session:
        session.run(load_cypher("admin/await_indexes"), seconds=index_timeout_s).consume()
    store.set_encoder_meta()
    return ReplayResult(total, time.perf_counter() - started)


def _project_page(store: EventStore, events: list[StoredEvent]) -> None:
    store.warm((e.type, e.payload) for e in events)

    def work(tx: ManagedTransaction) -> None:
        project_events(tx, events, store.encoder)

    with store.driver.session(database=store.database) as session:
        session.execute_write(work)
