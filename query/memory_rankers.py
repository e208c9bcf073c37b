"""Memory rankers owned by a memory system's SDK: for recipes that must rank a system's memories exactly as the
system's own search does (`Recipe.sdk_ranking`), the writing side (agents/memory/) registers a ranker here.

A ranker takes (profile id, query, k) and returns the project's memory ids, best first. The retriever keeps only
ids that are live cards of the profile visible at the history cut-off, so every hit still resolves in the graph.
Without a registered ranker such a recipe fails with a clear error instead of silently ranking another way.
"""

from __future__ import annotations

from collections.abc import Callable
from threading import Lock

from query.errors import QueryError

Ranker = Callable[[str, str, int], list[str]]

_RANKERS: dict[str, Ranker] = {}
_LOCK = Lock()


class RankerUnavailableError(QueryError):
    """A recipe ranks with a memory system's own search, and no ranker of that system is registered."""


def register_memory_ranker(system: str, ranker: Ranker) -> None:
    with _LOCK:
        _RANKERS[system] = ranker


def unregister_memory_ranker(system: str) -> None:
    with _LOCK:
        _RANKERS.pop(system, None)


def memory_ranker(system: str, recipe: str) -> Ranker:
    with _LOCK:
        ranker = _RANKERS.get(system)
    if ranker is None:
        raise RankerUnavailableError(
            f"recipe {recipe} ranks {system!r} memories with {system}'s own search, which is not open in this "
            f"process; commands that run it (run, eval retrieval, query search) open it when the `memory` LLM "
            "role is configured"
        )
    return ranker
