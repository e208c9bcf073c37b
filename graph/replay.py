"""Rebuild the projection from the log: drop every projected node, then replay events in seq order."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from neo4j import ManagedTransaction

from graph.cypher_files import load_cypher, load_statements
from graph.projection import PlannedStatement, apply_projection, plan_projection
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
    thread fetches and plans the next page (rows, embeddings, statement parameters) while Neo4j applies the
    current one. Ends by creating the search indexes and waiting (at most `index_timeout_s`) until they are
    populated; that wait is part of the time."""
    started = time.perf_counter()
    pages: queue.Queue[tuple[int, list[PlannedStatement]] | BaseException | None] = queue.Queue(maxsize=2)

    def read_pages() -> None:
        try:
            for page in store.read_for_replay(page_size=page_size):
                store.warm((e.type, e.payload) for e in page)
                pages.put((len(page), plan_projection(page, store.encoder)))
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
        count, statements = item
        _apply_page(store, statements)
        total += count
        if progress:
            progress(count)
    reader.join()
    if on_indexing:
        on_indexing()
    store.create_search_indexes()
    with store.driver.session(database=store.database) as session:
        session.run(load_cypher("admin/await_indexes"), seconds=index_timeout_s).consume()
    store.set_encoder_meta()
    return ReplayResult(total, time.perf_counter() - started)


def _apply_page(store: EventStore, statements: list[PlannedStatement]) -> None:
    def work(tx: ManagedTransaction) -> None:
        apply_projection(tx, statements)

    with store.driver.session(database=store.database) as session:
        session.execute_write(work)
