"""Deterministic ids inside Graphiti. graphiti-core names every node and edge it creates (entities, fact edges,
MENTIONS edges) with a fresh `uuid4` (the default factories of `graphiti_core.nodes` and `graphiti_core.edges`):
two builds of the same history would store the same facts under different ids, and those ids reach later
requests (the facts a memory search returns to the answerer), so a rebuild or a resumed build could never send
the requests of an uninterrupted one. While a pair is taken in, the `uuid4` those modules call returns a uuid5
derived from the profile, the pair and the call's position in the pair instead (per thread of control: a
context variable, which asyncio copies into the tasks Graphiti gathers; elsewhere uuid4 is uuid4). Graphiti
creates a pair's nodes and edges in the order of its replies, so the same replies give the same ids; nothing
else of what Graphiti sends or stores changes."""

from __future__ import annotations

import contextvars
import itertools
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# uuid5 namespace of colabench's Graphiti node and edge ids (fixed: changing it renames every fact of a rebuild)
GRAPHITI_IDS_NAMESPACE = uuid.UUID("3c9a51f4-2e7d-5b08-8f4e-677261706869")
# graphiti_core modules whose `uuid4` names what they create (their default factories call the module global)
_MODULES = ("graphiti_core.nodes", "graphiti_core.edges", "graphiti_core.graphiti")
_SEED: contextvars.ContextVar[tuple[str, Iterator[int]] | None] = contextvars.ContextVar(
    "graphiti_pair_seed", default=None
)


def pair_uuid4() -> uuid.UUID:
    """uuid4 outside a pair; inside one, the uuid5 of (profile, pair, n) for the pair's n-th id."""
    seed = _SEED.get()
    if seed is None:
        return uuid.uuid4()
    prefix, counter = seed
    return uuid.uuid5(GRAPHITI_IDS_NAMESPACE, f"{prefix}\x1f{next(counter)}")


def install() -> None:
    """Route graphiti_core's uuid4 through the pair seed (idempotent)."""
    import importlib

    for name in _MODULES:
        module = importlib.import_module(name)
        current: Callable[[], uuid.UUID] = module.uuid4
        if current is not pair_uuid4:
            module.uuid4 = pair_uuid4  # type: ignore[attr-defined]


@contextmanager
def pair_seed(profile_id: str, pair_id: str) -> Iterator[None]:
    """Ids drawn inside the block (this thread, and the tasks it starts) are derived from (profile, pair)."""
    token = _SEED.set((f"{profile_id}\x1f{pair_id}", itertools.count()))
    try:
        yield
    finally:
        _SEED.reset(token)
