"""An Encoder wrapper that embeds each distinct text once per encoder_id, remembering vectors in SQLite."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from graph.embeddings.cache import EmbeddingCache, text_key
from graph.embeddings.encoder import Encoder, Vectors, check_vectors, empty_vectors


@dataclass(frozen=True)
class EncodeStats:
    """Running totals of a CachedEncoder.

    `texts` counts requested texts (duplicates included); `hits` and `misses` count distinct texts per
    call found in / absent from the cache; only misses are embedded, in `encode_seconds` of wall time.
    """

    texts: int = 0
    hits: int = 0
    misses: int = 0
    encode_seconds: float = 0.0

    @property
    def hit_rate(self) -> float:
        """Share of distinct looked-up texts served from the cache (0.0 before any lookup)."""
        looked_up = self.hits + self.misses
        return self.hits / looked_up if looked_up else 0.0


class CachedEncoder:
    """Same protocol as the wrapped encoder; `encode` embeds only texts the cache does not hold yet.

    Misses are deduplicated, embedded in one call, stored, and every vector is returned in input order,
    so a text is embedded at most once per encoder_id across calls and processes sharing the cache file
    (two processes missing the same text at the same moment may both embed it; the first row stored wins).
    """

    def __init__(self, encoder: Encoder, cache: EmbeddingCache) -> None:
        self.encoder = encoder
        self.cache = cache
        self._stats = EncodeStats()
        self._stats_lock = threading.Lock()

    @property
    def encoder_id(self) -> str:
        return self.encoder.encoder_id

    @property
    def dim(self) -> int:
        return self.encoder.dim

    @property
    def stats(self) -> EncodeStats:
        """A snapshot of the running totals."""
        return self._stats

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Unit-length float32 vectors of shape (len(texts), dim), in input order, read from the cache
        where present; the rest are embedded by the wrapped encoder (once per distinct text) and stored."""
        dim = self.dim
        if not texts:
            return empty_vectors(dim)
        encoder_id = self.encoder_id
        keys = [text_key(t) for t in texts]
        # First occurrence of each distinct text, in input order.
        first_index: dict[bytes, int] = {}
        for index, key in enumerate(keys):
            first_index.setdefault(key, index)
        found = self.cache.get_many(encoder_id, list(first_index), dim)
        missing = [key for key in first_index if key not in found]
        seconds = 0.0
        if missing:
            started = time.perf_counter()
            fresh = self.encoder.encode([texts[first_index[key]] for key in missing])
            seconds = time.perf_counter() - started
            check_vectors(fresh, len(missing), dim, encoder_id)
            new_rows = dict(zip(missing, fresh, strict=True))
            self.cache.put_many(encoder_id, new_rows)
            found.update(new_rows)
        out = np.stack([found[key] for key in keys]).astype(np.float32, copy=False)
        with self._stats_lock:
            self._stats = replace(
                self._stats,
                texts=self._stats.texts + len(texts),
                hits=self._stats.hits + len(first_index) - len(missing),
                misses=self._stats.misses + len(missing),
                encode_seconds=self._stats.encode_seconds + seconds,
            )
        return out
