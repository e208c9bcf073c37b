"""The knowledge-base channels: keyword (Lucene full-text) and semantic (vector index or exact cosine) over
chunks, grouped into documents (a document's best chunk gives its score, snippet and line range), and the
snippets of documents no direct channel matched (memory-linked candidates).

Semantic scoring mode: exact cosine over the corpus's chunks when the corpus is small, else the HNSW index,
oversampled when a corpus filter removes part of what the index returns. "Small" has two thresholds because
a filtered index query must read many more chunks than it keeps (crossovers measured by
bench/bench_retrieval.py on 2 cores, 33k chunks: an exact scan costs ~1.7 ms per 100 chunks; the whole-KB
index query ~4-5 ms; a filtered one ~17-22 ms).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from neo4j import Driver, Result

from graph.cypher_files import load_cypher
from query.corpus import EVERYTHING, Corpus
from query.fusion import Fused
from query.query_vectors import vector_param

# Exact scoring up to this many chunks: an unfiltered corpus (the index answers directly, ~4-5 ms) ...
EXACT_MAX_CHUNKS = 300
# ... and a filtered one (the index is oversampled and post-filtered, ~17-22 ms).
EXACT_MAX_CHUNKS_FILTERED = 2000
# Corpus statistics are re-read after this many seconds (documents are rarely added while serving).
CORPUS_TTL_S = 30.0
# The index is never asked for more chunks than this (its cost grows with the number returned).
MAX_INDEX_CHUNKS = 2000
# A keyword read that gave fewer documents than the channel depth while the index had more chunks to give
# (a document's chunks share its terms, so `chunks` hits can be few documents) is read again this many times
# deeper, until the depth is filled or the index has no more matching chunks (docs/retrieval.md, "Whole
# keyword lists").
KEYWORD_DEEPEN = 4


@dataclass(frozen=True)
class Candidate:
    """A document proposed by a channel with its best chunk; chunk fields are None for a document that no
    direct channel matched (a memory-linked candidate) until its snippet is looked up."""

    doc_id: str
    score: float
    chunk_id: str | None = None
    title: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    text: str | None = None

    @property
    def has_snippet(self) -> bool:
        return self.chunk_id is not None and self.text is not None


@dataclass(frozen=True)
class CorpusStats:
    doc_ids: tuple[str, ...]
    filtered: bool  # the corpus is not every document of the graph
    n_chunks: int
    total_chunks: int
    at: float
    listed: bool = True  # doc_ids holds the corpus's documents (False: not read yet, the whole graph)


@dataclass(frozen=True)
class ChannelRun:
    """What a channel returned, and how."""

    candidates: list[Candidate]
    chunks_read: int  # chunks asked from the index, or scanned
    starved: bool  # a corpus filter removed hits from an index that had more to give
    hits: int | None = None  # chunks the index returned (an index read; None: not known)


@dataclass(frozen=True)
class HybridRun:
    """What the one HYBRID statement returned: the top k fused documents, and each channel's list length (the
    documents it fused, at most the channel depth); `keyword_chunks`: how deep the keyword index was read."""

    fused: list[tuple[Fused, Candidate]]
    n_semantic: int
    n_keyword: int
    keyword_chunks: int = 0


# The knowledge channels `KnowledgeChannels.hybrid` runs and fuses in one statement, in recipe order (also the
# channel numbers 0 and 1 of hybrid_chunks_all's `ranks` pairs).
FUSED_CHANNELS = ("semantic", "keyword")


class KnowledgeChannels:
    """Runs the knowledge-base channel queries on one database; caches corpus statistics briefly."""

    def __init__(
        self, driver: Driver, database: str = "neo4j", exact_max_chunks: int | None = None, fill_keyword: bool = True
    ) -> None:
        """`exact_max_chunks` overrides both measured thresholds (0: always the index). `fill_keyword`: a keyword
        read that gives fewer documents than the depth while the index has more matching chunks is read deeper
        (KEYWORD_DEEPEN); False reads `chunks` once (as before; the benchmarks compare the two)."""
        self.driver = driver
        self.database = database
        self.exact_max_chunks = exact_max_chunks
        self.fill_keyword = fill_keyword
        self._stats: dict[tuple[object, ...], CorpusStats] = {}

    def corpus_stats(self, corpus: Corpus) -> CorpusStats:
        """Documents and chunks of the corpus (cached for CORPUS_TTL_S seconds)."""
        key = corpus.cache_key()
        cached = self._stats.get(key)
        now = time.monotonic()
        if cached is not None and now - cached.at < CORPUS_TTL_S:
            return cached
        with self.driver.session(database=self.database) as session:
            total = session.run(load_cypher("query/count_chunks")).single()
            if corpus.is_everything:
                # The whole graph: the count store answers; the document list is read only if an exact scan
                # needs it (a graph small enough for one), instead of every document every CORPUS_TTL_S.
                n = int(total["n"]) if total else 0
                stats = CorpusStats(doc_ids=(), filtered=False, n_chunks=n, total_chunks=n, at=now, listed=False)
                self._stats[key] = stats
                return stats
            rows = list(session.run(load_cypher("query/corpus_documents"), **corpus.cypher_params()))
        stats = CorpusStats(
            doc_ids=tuple(r["doc_id"] for r in rows),
            # A filter that keeps every document is no filter (and needs no per-hit check).
            filtered=not corpus.is_everything and (not total or len(rows) < int(total["n_docs"])),
            n_chunks=sum(int(r["n_chunks"]) for r in rows),
            total_chunks=int(total["n"]) if total else 0,
            at=now,
        )
        self._stats[key] = stats
        return stats

    def keyword(self, lucene: str, corpus: Corpus, depth: int, chunks: int, index: str = "chunk_text") -> ChannelRun:
        """Documents by Lucene BM25 over chunk text + title in full-text index `index` (the keyword analyzer's:
        chunk_text or chunk_text_plain); the index is read `chunks` deep (deeper when a corpus filter removes
        part of it), and deeper again while that gives fewer than `depth` documents and the index has more
        matching chunks (`fill_keyword`)."""
        stats = self.corpus_stats(corpus)
        while True:
            run = self._index_run("query/keyword_chunks", stats, corpus, depth, chunks, lucene=lucene, index=index)
            if not self._deepen(len(run.candidates), depth, run.hits, run.chunks_read, stats.total_chunks):
                return run
            chunks *= KEYWORD_DEEPEN

    def semantic(self, vector: np.ndarray, corpus: Corpus, depth: int, chunks: int) -> ChannelRun:
        """Documents by cosine of their best chunk to `vector` (exact on small corpora, else the index)."""
        stats = self.corpus_stats(corpus)
        vec = vector_param(vector)
        if stats.n_chunks <= self._exact_limit(stats):
            with self.driver.session(database=self.database) as session:
                if not stats.listed:
                    listed = session.run(load_cypher("query/corpus_documents"), **corpus.cypher_params())
                    stats = replace(stats, doc_ids=tuple(r["doc_id"] for r in listed), listed=True)
                    self._stats[corpus.cache_key()] = stats
                rows = _rows(
                    session.run(
                        load_cypher("query/semantic_chunks_exact"), vector=vec, doc_ids=list(stats.doc_ids), depth=depth
                    )
                )
            return ChannelRun([_candidate(r) for r in rows], stats.n_chunks, starved=False)
        return self._index_run("query/semantic_chunks_index", stats, corpus, depth, chunks, vector=vec)

    def fuses_in_one_statement(self, corpus: Corpus) -> bool:
        """True when `hybrid` can serve this corpus: the whole graph, read through both indexes (no corpus
        filter, too many chunks for an exact scan)."""
        stats = self.corpus_stats(corpus)
        return not stats.filtered and stats.n_chunks > self._exact_limit(stats)

    def hybrid(
        self, vector: np.ndarray, lucene: str, depth: int, chunks: int, k: int, kappa: float, index: str = "chunk_text"
    ) -> HybridRun:
        """The top k documents of the RRF of the semantic and keyword channels over the whole graph, in one
        statement (the channels and the fusion of `semantic` + `keyword` + query.fusion, without sending
        2 x `depth` rows back): each with its fused score, channel ranks and the snippet of its best chunk in
        the channel where it ranks best; with the two channels' list lengths. Only for a corpus
        `fuses_in_one_statement` accepts."""
        keyword_chunks = chunks
        while True:
            with self.driver.session(database=self.database) as session:
                rows = _rows(
                    session.run(
                        load_cypher("query/hybrid_chunks_all"),
                        vector=vector_param(vector),
                        lucene=lucene,
                        index=index,
                        limit=chunks,
                        keyword_limit=keyword_chunks,
                        depth=depth,
                        k=k,
                        kappa=float(kappa),
                    )
                )
            n_keyword, hits = (int(rows[0]["n_keyword"]), int(rows[0]["n_keyword_hits"])) if rows else (0, 0)
            if n_keyword >= depth or not self._deepen(
                n_keyword, depth, hits, keyword_chunks, self.corpus_stats(EVERYTHING).total_chunks
            ):
                break
            keyword_chunks *= KEYWORD_DEEPEN
        # The statement orders its rows; the same key again here keeps the order independent of the runtime.
        rows.sort(key=lambda r: (-float(r["score"]), int(r["best_rank"]), int(r["best_channel"]), r["doc_id"]))
        out = []
        for r in rows:
            # In channel order, as query.fusion records them.
            ranks = {FUSED_CHANNELS[int(ch)]: int(rank) for ch, rank in sorted(r["ranks"])}
            out.append((Fused(r["doc_id"], float(r["score"]), ranks), _candidate(r)))
        # every row carries the lengths; no row means both lists were empty
        n_semantic, n_keyword = (int(rows[0]["n_semantic"]), int(rows[0]["n_keyword"])) if rows else (0, 0)
        return HybridRun(out, n_semantic, n_keyword, keyword_chunks)

    def _deepen(self, n_docs: int, depth: int, hits: int | None, read: int, total_chunks: int) -> bool:
        """Whether a keyword read of `read` chunks that gave `n_docs` documents and `hits` chunks (None: not
        known) should be read deeper: fewer documents than the depth, the index returned every chunk asked for
        (it may have more) and the read was not yet the whole index."""
        return self.fill_keyword and n_docs < depth and (hits is None or hits >= read) and read < total_chunks

    def padding(self, corpus: Corpus, n: int, exclude: list[str]) -> list[Candidate]:
        """Up to `n` documents of the corpus (with chunks) that are not in `exclude`, by id, at score 0: what
        a keyword list padded to its budget appends (the documents sharing no query term, as a BM25 that
        scores every document ranks them: 0, ties by id)."""
        if n <= 0:
            return []
        with self.driver.session(database=self.database) as session:
            rows = session.run(
                load_cypher("query/padding_documents"), exclude=exclude, n=n, **corpus.cypher_params()
            )
            return [Candidate(r["doc_id"], 0.0) for r in rows]

    def _index_run(
        self, cypher: str, stats: CorpusStats, corpus: Corpus, depth: int, chunks: int, **query: Any
    ) -> ChannelRun:
        """One index channel query (`query`: its own parameters), read `chunks` deep plus the oversampling a
        corpus filter needs."""
        limit = _oversampled(chunks, stats)
        with self.driver.session(database=self.database) as session:
            if stats.filtered:
                params = {"limit": limit, "depth": depth, "filtered": True, **corpus.cypher_params(), **query}
                rows = _rows(session.run(load_cypher(cypher), params))
            else:
                # No filter: the `_all` twin returns the same rows without the per-hit filter subquery.
                rows = _rows(session.run(load_cypher(f"{cypher}_all"), {"limit": limit, "depth": depth, **query}))
        n_raw = int(rows[0]["n_raw"]) if rows and stats.filtered else limit
        # The filter starved the channel when the index was cut at `limit` and the filter dropped part of it.
        starved = stats.filtered and n_raw >= limit and limit < stats.total_chunks
        # Chunks the index returned: the filtered statement counts them; the unfiltered keyword one gives each
        # document's (their sum is every chunk when the depth cut nothing); no row: none.
        if stats.filtered:  # no row: the filter may have dropped every hit of a full read
            hits: int | None = int(rows[0]["n_raw"]) if rows else None
        elif rows and "n_hits" in rows[0]:
            hits = sum(int(r["n_hits"]) for r in rows) if len(rows) < depth else None
        else:
            hits = 0 if not rows else None
        return ChannelRun([_candidate(r) for r in rows], limit, starved=starved, hits=hits)

    def _exact_limit(self, stats: CorpusStats) -> int:
        if self.exact_max_chunks is not None:
            return self.exact_max_chunks
        return EXACT_MAX_CHUNKS_FILTERED if stats.filtered else EXACT_MAX_CHUNKS

    def snippets(self, doc_ids: list[str], vector: np.ndarray | None) -> dict[str, Candidate]:
        """For documents without a matched chunk: the chunk closest to `vector` (or the first chunk).
        A document without chunks is missing from the result."""
        if not doc_ids:
            return {}
        with self.driver.session(database=self.database) as session:
            rows = list(
                session.run(
                    load_cypher("query/hydrate_documents"),
                    doc_ids=doc_ids,
                    vector=vector_param(vector) if vector is not None else None,
                )
            )
        return {r["doc_id"]: _candidate(r, score=0.0) for r in rows}


def _rows(result: Result) -> list[dict[str, Any]]:
    """A result's records as dicts: the driver's by-name field access costs several times a dict lookup
    (~0.13 ms more for a 10-row channel result at a load average of 14)."""
    keys = result.keys()
    return [dict(zip(keys, record, strict=True)) for record in result]


def _candidate(row: Any, score: float | None = None) -> Candidate:
    return Candidate(
        doc_id=row["doc_id"],
        score=float(row["score"]) if score is None else score,
        chunk_id=row["chunk_id"],
        title=row["title"],
        start_line=int(row["start_line"]),
        end_line=int(row["end_line"]),
        text=row["text"],
    )


def _oversampled(chunks: int, stats: CorpusStats) -> int:
    """Chunks to read from an index so that, after the corpus filter, about `chunks` remain."""
    if not stats.filtered or stats.n_chunks <= 0 or stats.total_chunks <= 0:
        return chunks
    factor = stats.total_chunks / stats.n_chunks
    return int(min(max(chunks, chunks * factor * 1.2), max(chunks, MAX_INDEX_CHUNKS), stats.total_chunks))
