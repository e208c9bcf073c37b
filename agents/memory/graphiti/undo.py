"""An exact undo of one pair's Graphiti write. Graphiti writes a pair's episode, entities and facts in one
transaction of its own; the pair's events are appended after it, in another. A process stopped between the two
leaves a written episode without its events, and the rerun must take the pair in again. Graphiti's
`remove_episode` cannot serve as the undo: it deletes what only that episode supported but asks the LLM to
rewrite the summary of every entity the episode shared with earlier ones, so the redone pair would meet other
summaries (and send other requests) than an uninterrupted build, and the rewrite's exchanges would land in the
pair's record.

So just before Graphiti's write (`add_nodes_and_edges_bulk`, seen through `graphiti_core.graphiti`'s reference
to it, called with its arguments unchanged), the entities and facts it is about to save that already exist are
copied, with the list of what it saves, into `GraphitiUndo` nodes (cypher/memory/graphiti_undo_save). The rerun
of the pair restores them, deletes what the write created and the episode (graphiti_undo_apply), and takes the
pair in again from the very state the first attempt started from. The records of a pair are dropped once its
events are written; `GraphitiUndo` is neither projected nor fingerprinted and `graph rebuild` keeps it."""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from graph.cypher_files import load_statements
from graph.store import EventStore

# (store, episode uuid, group id) of the pair being written in this thread of control, or None
_PENDING: contextvars.ContextVar[tuple[EventStore, str, str] | None] = contextvars.ContextVar(
    "graphiti_pending_episode", default=None
)


def save_undo(store: EventStore, episode: str, group: str, node_uuids: list[str], edge_uuids: list[str]) -> None:
    """Keep what the episode's write will overwrite (one transaction, committed before the write)."""
    statements = load_statements("memory/graphiti_undo_save")
    params = {"episode": episode, "group": group, "node_uuids": node_uuids, "edge_uuids": edge_uuids}

    def work(tx: Any) -> None:
        for statement in statements:
            tx.run(statement, **params).consume()

    with store.driver.session(database=store.database) as session:
        session.execute_write(work)


def apply_undo(store: EventStore, episode: str) -> None:
    """Put back the entities and facts the episode's write changed, delete what it created and the episode."""
    statements = load_statements("memory/graphiti_undo_apply")

    def work(tx: Any) -> None:
        for statement in statements:
            tx.run(statement, episode=episode).consume()

    with store.driver.session(database=store.database) as session:
        session.execute_write(work)


def _bulk_with_undo(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def add_nodes_and_edges_bulk(
        driver: Any,
        episodic_nodes: list[Any],
        episodic_edges: list[Any],
        entity_nodes: list[Any],
        entity_edges: list[Any],
        embedder: Any,
    ) -> Any:
        pending = _PENDING.get()
        if pending is not None and any(ep.uuid == pending[1] for ep in episodic_nodes):
            store, episode, group = pending
            save_undo(store, episode, group, [n.uuid for n in entity_nodes], [e.uuid for e in entity_edges])
        return await original(driver, episodic_nodes, episodic_edges, entity_nodes, entity_edges, embedder)

    add_nodes_and_edges_bulk.colabench_undo = True  # type: ignore[attr-defined]
    return add_nodes_and_edges_bulk


def install() -> None:
    """Have graphiti_core.graphiti save an undo record before it writes a pending episode (idempotent)."""
    import graphiti_core.graphiti as facade

    if not getattr(facade.add_nodes_and_edges_bulk, "colabench_undo", False):
        facade.add_nodes_and_edges_bulk = _bulk_with_undo(facade.add_nodes_and_edges_bulk)  # type: ignore[assignment]


@contextmanager
def pending_episode(store: EventStore, episode: str, group: str) -> Iterator[None]:
    """Inside the block, Graphiti's write of `episode` keeps an undo record first."""
    token = _PENDING.set((store, episode, group))
    try:
        yield
    finally:
        _PENDING.reset(token)
