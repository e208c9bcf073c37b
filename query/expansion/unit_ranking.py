"""Rank keyed units for a query with a recipe's memory channels: `semantic` (cosine between the encoder's
vectors of the query and of each key), `keyword` (BM25 over the keys, query.bm25), both fused with RRF at the
recipe's kappa (query.fusion). The units are in memory (a question's own haystack), so nothing is indexed in
the graph; the same encoder and tokenisation as the graph's memory channels are used.

`UnitIndex` embeds and tokenises the keys once; `rank` is then one query embedding (query.query_vectors:
the encoder without its shared SQLite cache, whose round trip costs more than embedding a short text; or a
vector the caller embedded beforehand, as `eval qa` does for all its questions in one batch), a matrix
product and a BM25 scoring."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from graph.projection import VectorEncoder
from query.bm25 import BM25Index
from query.errors import QueryError
from query.fusion import fuse_channels
from query.query_vectors import QueryEmbedder

CHANNELS = ("semantic", "keyword")


class UnitIndex:
    """The keys of a set of units, embedded (when the semantic channel is asked) and BM25-indexed."""

    def __init__(
        self,
        unit_ids: Sequence[str],
        keys: Sequence[str],
        *,
        channels: Sequence[str],
        encoder: VectorEncoder | None,
        query_embedder: QueryEmbedder | None = None,
    ) -> None:
        """`query_embedder` should be shared by the indexes of a run (making one loads a model session)."""
        if len(unit_ids) != len(keys):
            raise QueryError(f"UnitIndex: {len(unit_ids)} ids but {len(keys)} keys")
        unknown = [c for c in channels if c not in CHANNELS]
        if unknown or not channels:
            raise QueryError(f"unit ranking channels must be among {CHANNELS}, got {list(channels)}")
        self.unit_ids = list(unit_ids)
        self.channels = tuple(channels)
        self.encoder = encoder
        self._vectors: np.ndarray | None = None
        self._query_embedder = query_embedder
        if "semantic" in channels:
            if encoder is None:
                raise QueryError("the semantic channel needs an encoder")
            if self._query_embedder is None:
                self._query_embedder = QueryEmbedder(encoder)
            vectors = encoder.encode(list(keys)) if keys else np.zeros((0, encoder.dim), dtype=np.float32)
            self._vectors = np.asarray(vectors, dtype=np.float32)
        self._bm25 = BM25Index(self.unit_ids, keys) if "keyword" in channels else None

    def rank(
        self,
        query: str,
        kappa: float,
        among: Collection[str] | None = None,
        query_vector: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """(unit id, score) best first, over every unit or only those in `among` (time pruning);
        `query_vector` is the query's unit-length embedding when the caller has it already."""
        allowed = None if among is None else set(among)
        lists: dict[str, list[tuple[str, float]]] = {}
        if self._vectors is not None:
            if query_vector is None:
                assert self._query_embedder is not None
                query_vector = self._query_embedder.embed(query)
            scores = self._vectors @ query_vector if len(self.unit_ids) else np.zeros(0)
            order = sorted(range(len(self.unit_ids)), key=lambda i: (-float(scores[i]), self.unit_ids[i]))
            lists["semantic"] = [
                (self.unit_ids[i], float(scores[i])) for i in order if allowed is None or self.unit_ids[i] in allowed
            ]
        if self._bm25 is not None:
            lists["keyword"] = [(u, s) for u, s in self._bm25.rank(query) if allowed is None or u in allowed]
        return [(f.item_id, f.score) for f in fuse_channels(lists, kappa)]

