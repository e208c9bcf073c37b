"""Deterministic ids inside LangMem. LangMem tags each extraction prompt with a fresh `uuid4` session id and
keys each new memory with another `uuid4`: the same pair would send a different prompt on every attempt (the
LLM cache could never answer a rebuild) and get different keys. While a pair is taken in, those uuid4 calls of
LangMem's extraction module return uuid5s derived from the system, profile, pair and call number instead
(per thread of control: a context variable; elsewhere uuid4 is uuid4)."""

from __future__ import annotations

import contextvars
import itertools
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

# uuid5 namespace of colabench's LangMem ids (fixed: changing it would change the prompts and keys of a rebuild)
LANGMEM_NAMESPACE = uuid.UUID("5d2b8c1e-7a43-5f0e-b1c6-6c616e676d65")
_SEED: contextvars.ContextVar[tuple[str, Iterator[int]] | None] = contextvars.ContextVar("langmem_seed", default=None)


class _PairUuids(ModuleType):
    """Stands in for the `uuid` module in LangMem's extraction module: uuid4 is derived inside a pair."""

    def __init__(self) -> None:
        super().__init__("uuid")

    def __getattr__(self, name: str) -> Any:
        return getattr(uuid, name)

    @staticmethod
    def uuid4() -> uuid.UUID:
        seed = _SEED.get()
        if seed is None:
            return uuid.uuid4()
        prefix, counter = seed
        return uuid.uuid5(LANGMEM_NAMESPACE, f"{prefix}\x1f{next(counter)}")


def install() -> None:
    """Route LangMem's extraction module's uuid4 through the pair seed (idempotent)."""
    import langmem.knowledge.extraction as extraction

    if not isinstance(extraction.uuid, _PairUuids):
        extraction.uuid = _PairUuids()


@contextmanager
def pair_seed(system: str, profile_id: str, pair_id: str) -> Iterator[None]:
    token = _SEED.set((f"{system}\x1f{profile_id}\x1f{pair_id}", itertools.count()))
    try:
        yield
    finally:
        _SEED.reset(token)
