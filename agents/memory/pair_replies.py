"""The `memory` role's client as the memory systems see it: inside a pair (`hold()`), the replies it fetches
are cached only once the pair is written (`keep()`), so a reply an SDK could not use (Mem0 logging
"Error parsing extraction response" and carrying on, A-MEM's or Graphiti's reply checks) is asked again on the
rerun instead of being replayed from the cache. Outside a pair it is the client itself."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any


class PairCachingLLM:
    """Wraps an LLMClient (every other attribute is the client's)."""

    def __init__(self, llm: Any) -> None:
        self._llm = llm
        self._lock = threading.Lock()
        self._held: list[Any] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)

    @property
    def client(self) -> Any:
        return self._llm

    def chat(self, messages: Sequence[Any], *, cache_reply: bool = True, **kwargs: Any) -> Any:
        with self._lock:
            held = self._held
        if held is None or not cache_reply:
            return self._llm.chat(messages, cache_reply=cache_reply, **kwargs)
        reply = self._llm.chat(messages, cache_reply=False, **kwargs)
        if not reply.cached and reply.finish_reason != "length":  # a cut reply is never cached
            with self._lock:
                held.append(reply)
        return reply

    @contextmanager
    def hold(self) -> Iterator[list[Any]]:
        """Replies fetched inside are kept back from the cache; the caller passes the list to `keep` once the
        pair is written, or drops it."""
        held: list[Any] = []
        with self._lock:
            self._held = held
        try:
            yield held
        finally:
            with self._lock:
                self._held = None

    def keep(self, replies: list[Any]) -> None:
        for reply in replies:
            self._llm.remember(reply)
