"""BM25 (rank-bm25's Okapi variant) over small candidate sets fetched from the graph (a profile's memory
cards), with the tokenised index cached per exact card set (and analyzer) so repeated queries skip
re-indexing. The tokens come from a keyword analyzer (query.keyword_analyzers: english or plain)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from threading import Lock

import numpy as np
from rank_bm25 import BM25Okapi

from query.keyword_analyzers import ANALYZERS, KeywordAnalyzer


class BM25Index:
    """BM25 over `texts` (ids in the same order); `rank` lists only ids matching at least one query term."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str], analyzer: KeywordAnalyzer | None = None) -> None:
        self.ids = list(ids)
        self.analyzer = analyzer or ANALYZERS["english"]
        tokenized = [self.analyzer.document_tokens(text) for text in texts]
        self._vocab = {token for tokens in tokenized for token in tokens}
        # rank-bm25 divides by the mean length; an all-empty corpus would divide by zero.
        self._bm25 = BM25Okapi([tokens or ["\u0000"] for tokens in tokenized]) if self._vocab else None

    def rank(self, query: str) -> list[tuple[str, float]]:
        """(id, score) of the documents sharing a term with the query, best first (ties by id)."""
        if self._bm25 is None:
            return []
        terms = [t for t in self.analyzer.query_tokens(query) if t in self._vocab]
        if not terms:
            return []
        scores = np.asarray(self._bm25.get_scores(terms))
        matched = self._matching(terms)
        ranked = sorted(((self.ids[i], float(scores[i])) for i in matched), key=lambda p: (-p[1], p[0]))
        return ranked

    def padded(self, query: str) -> list[tuple[str, float]]:
        """`rank` followed by every other document with BM25 score 0, ties by id: the whole list, as a
        BM25 that scores every document ranks it."""
        ranked = self.rank(query)
        seen = {item_id for item_id, _ in ranked}
        return ranked + [(item_id, 0.0) for item_id in sorted(set(self.ids) - seen)]

    def _matching(self, terms: list[str]) -> list[int]:
        bm25 = self._bm25
        assert bm25 is not None
        return [i for i, freqs in enumerate(bm25.doc_freqs) if any(t in freqs for t in terms)]


class BM25Cache:
    """A small LRU of BM25 indexes keyed by the exact (id, version) set they were built from."""

    def __init__(self, size: int = 128) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, BM25Index] = OrderedDict()
        self._lock = Lock()

    def get(self, key: Hashable) -> BM25Index | None:
        with self._lock:
            index = self._items.get(key)
            if index is not None:
                self._items.move_to_end(key)
            return index

    def put(self, key: Hashable, index: BM25Index) -> None:
        with self._lock:
            self._items[key] = index
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
