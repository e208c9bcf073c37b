"""Query embedding for search: the configured encoder without its persistent cache, plus a small in-memory
LRU. Queries are ephemeral; a write to the shared SQLite cache per query costs more than embedding one
short text (measured: cache round trip 45-130 ms under load versus ~5-10 ms to embed).

With the default ONNX encoder, queries go through a single-threaded twin of it (same model file, same
encoder id, same vectors): one short text gains little from two threads, and on 2 cores shared with Neo4j and
the keyword channel the second thread mostly waits (measured under load: p50 7.3 ms with one thread,
17.1 ms with two).
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock
from typing import Any

import numpy as np

from graph.projection import VectorEncoder
from graph.quiet_params import QuietList

QUERY_THREADS = 1


def vector_param(vector: np.ndarray) -> QuietList:
    """`vector` as a float32-rounded Cypher parameter whose repr is short: the driver formats every RUN's
    parameters for its debug log even when that log is off (graph.quiet_params), and the repr of 384 floats
    took 1.5 ms per statement at a load average of 14 on 2 cores."""
    return QuietList(vector.astype(np.float32).tolist())


def _query_encoder(raw: Any) -> Any:
    """A single-threaded twin of the bundled ONNX encoder when `raw` is that encoder, else `raw` itself."""
    from graph.embeddings import OnnxEncoder
    from graph.embeddings.model_dir import bundled_minilm_dir

    if not isinstance(raw, OnnxEncoder) or raw.threads == QUERY_THREADS:
        return raw
    twin = OnnxEncoder(bundled_minilm_dir(), threads=QUERY_THREADS)
    # Only the very same model (same weights hash and id prefix) may stand in for it.
    return twin if twin.encoder_id == raw.encoder_id else raw


class QueryEmbedder:
    """Embeds query texts with the encoder behind a CachedEncoder (same model, same vectors)."""

    def __init__(self, encoder: VectorEncoder, size: int = 4096) -> None:
        self.encoder = encoder
        # The wrapped encoder gives identical vectors without touching the SQLite cache.
        self._raw = _query_encoder(getattr(encoder, "encoder", encoder))
        self.size = size
        self._lru: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = Lock()

    def embed(self, text: str) -> np.ndarray:
        """The unit-length float32 vector of `text`."""
        with self._lock:
            cached = self._lru.get(text)
            if cached is not None:
                self._lru.move_to_end(text)
                return cached
        vector = np.asarray(self._raw.encode([text])[0], dtype=np.float32)
        with self._lock:
            self._lru[text] = vector
            while len(self._lru) > self.size:
                self._lru.popitem(last=False)
        return vector
