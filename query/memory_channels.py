"""The memory channels: a profile's memory cards fetched by Cypher and ranked by the query (exact cosine
against their stored vectors, BM25 over their text, or RRF of both), and their document links.

Card sets are per profile and small (tens to a few thousand), so cosine is computed exactly in Cypher:
the shared memory vector index would need post-filtering by profile, which starves as profiles multiply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from threading import Lock

import numpy as np
from neo4j import Driver

from graph.cypher_files import load_cypher
from query.bm25 import BM25Cache, BM25Index
from query.corpus import Corpus
from query.fusion import fuse_channels
from query.keyword_analyzers import DEFAULT_ANALYZER, get_analyzer
from query.query_vectors import vector_param


@dataclass(frozen=True)
class Cutoff:
    """The last visible turn of the history: (session ordinal, turn ordinal) inside its profile."""

    turn_id: str
    session_ordinal: int
    turn_ordinal: int


@dataclass(frozen=True)
class Card:
    memory_id: str
    version: int
    cosine: float | None


@dataclass(frozen=True)
class CardDetails:
    """What a hit shows of a card: its text and the turns it derives from (in history order)."""

    text: str
    source_turn_ids: tuple[str, ...]


@dataclass(frozen=True)
class RankedCard:
    card: Card
    score: float
    channel_ranks: dict[str, int]


class MemoryChannels:
    """Fetches and ranks memory cards; caches card texts (by version) and BM25 indexes (by card set)."""

    def __init__(self, driver: Driver, database: str = "neo4j") -> None:
        self.driver = driver
        self.database = database
        self._details: dict[str, tuple[int, CardDetails]] = {}
        self._texts_lock = Lock()
        self._bm25 = BM25Cache()

    def cards(self, profile_id: str, system: str, vector: np.ndarray | None, cutoff: Cutoff | None) -> list[Card]:
        """The live cards of `profile_id` in `system` visible at the cut-off, with cosine to `vector`."""
        vec = vector_param(vector) if vector is not None else None
        with self.driver.session(database=self.database) as session:
            if cutoff is None:
                # Without a cut-off the sources are not needed to choose cards: only hits fetch them.
                query = session.run(load_cypher("query/memory_cards"), profile_id=profile_id, system=system, vector=vec)
            else:
                query = session.run(
                    load_cypher("query/memory_cards_cutoff"),
                    profile_id=profile_id,
                    system=system,
                    vector=vec,
                    cut_session=cutoff.session_ordinal,
                    cut_turn=cutoff.turn_ordinal,
                )
            rows = list(query)
        return [
            Card(r["memory_id"], int(r["version"] or 0), float(r["score"]) if r["score"] is not None else None)
            for r in rows
        ]

    def details(self, cards: Sequence[Card]) -> dict[str, CardDetails]:
        """memory id -> text and source turns, from the cache when the card's version is unchanged."""
        out: dict[str, CardDetails] = {}
        missing: list[str] = []
        with self._texts_lock:
            for card in cards:
                cached = self._details.get(card.memory_id)
                if cached is not None and cached[0] == card.version:
                    out[card.memory_id] = cached[1]
                else:
                    missing.append(card.memory_id)
        if missing:
            with self.driver.session(database=self.database) as session:
                rows = list(session.run(load_cypher("query/memory_texts"), memory_ids=missing))
            with self._texts_lock:
                for r in rows:
                    found = CardDetails(r["text"] or "", tuple(r["source_turn_ids"]))
                    self._details[r["memory_id"]] = (int(r["version"] or 0), found)
                    out[r["memory_id"]] = found
        return out

    def rank(
        self,
        cards: Sequence[Card],
        channels: Sequence[str],
        query: str,
        kappa: float,
        cache_key: tuple[str, str] | None = None,
        analyzer: str = DEFAULT_ANALYZER,
        padding: bool = False,
        sizes: dict[str, int] | None = None,
    ) -> list[RankedCard]:
        """Cards ranked by the channels (one channel: its own score; several: RRF), best first.

        The semantic channel ranks every card; the keyword channel only cards sharing a query term, unless
        `padding` appends the others at BM25 score 0 (ties by id). `analyzer`: the keyword channel's tokens
        (query.keyword_analyzers). `sizes`, when given, receives each channel's list length before padding
        (`keyword_matched`) and after, and the number of candidate cards (`candidates`)."""
        lists: dict[str, list[tuple[str, float]]] = {}
        if "semantic" in channels:
            ordered = sorted(
                (c for c in cards if c.cosine is not None), key=lambda c: (-(c.cosine or 0.0), c.memory_id)
            )
            lists["semantic"] = [(c.memory_id, float(c.cosine or 0.0)) for c in ordered]
        if "keyword" in channels:
            index = self._bm25_index(cards, cache_key, analyzer)
            matched = index.rank(query)
            lists["keyword"] = index.padded(query) if padding else matched
            if sizes is not None:
                sizes["keyword_matched"] = len(matched)
        if sizes is not None:
            sizes["candidates"] = len(cards)
            sizes.update({name: len(ranked) for name, ranked in lists.items()})
        by_id = {card.memory_id: card for card in cards}
        return [RankedCard(by_id[f.item_id], f.score, f.channel_ranks) for f in fuse_channels(lists, kappa)]

    def _bm25_index(
        self, cards: Sequence[Card], cache_key: tuple[str, str] | None, analyzer: str = DEFAULT_ANALYZER
    ) -> BM25Index:
        key = (cache_key, analyzer, tuple(sorted((c.memory_id, c.version) for c in cards)))
        index = self._bm25.get(key)
        if index is None:
            details = self.details(cards)
            ids = [c.memory_id for c in cards]
            texts = [details[i].text if i in details else "" for i in ids]
            index = BM25Index(ids, texts, get_analyzer(analyzer))
            self._bm25.put(key, index)
        return index

    def links(self, memory_ids: Sequence[str], corpus: Corpus) -> dict[str, list[str]]:
        """memory id -> linked document ids in the corpus (neighbours first, then history reads)."""
        if not memory_ids:
            return {}
        with self.driver.session(database=self.database) as session:
            rows = list(
                session.run(load_cypher("query/memory_links"), memory_ids=list(memory_ids), **corpus.cypher_params())
            )
        return {r["memory_id"]: list(r["doc_ids"]) for r in rows}
