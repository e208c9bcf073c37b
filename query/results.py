"""What retrieval returns: pydantic records whose ids all resolve in the evidence graph.

A document hit names the document and the line range of its snippet; a memory hit names the memory and
the turns it was derived from; a state hit names the state and its source turns.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from query.corpus import Corpus


class DocumentHit(BaseModel):
    """One knowledge-base document; the snippet is the text of lines start_line..end_line (its best chunk).

    `score`: the RRF score when several channels are fused, else the channel's own score (Lucene BM25, or
    Neo4j's cosine similarity scaled to [0, 1] as (1 + cos) / 2). `channel_ranks`: rank in each channel."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    title: str
    start_line: int
    end_line: int
    snippet: str
    score: float
    rank: int
    chunk_id: str
    channel_ranks: dict[str, int] = Field(default_factory=dict)


class MemoryHit(BaseModel):
    """One memory card of the profile, with the turns it was derived from (DERIVED_FROM).

    `score` as for DocumentHit (cosine, BM25 or RRF); `linked_doc_ids` only for recipes that use the links."""

    model_config = ConfigDict(frozen=True)

    memory_id: str
    system: str
    text: str
    source_turn_ids: list[str]
    score: float
    rank: int
    linked_doc_ids: list[str] = Field(default_factory=list)
    channel_ranks: dict[str, int] = Field(default_factory=dict)


class StateHit(BaseModel):
    """One active state of the profile's state summary S(H)."""

    model_config = ConfigDict(frozen=True)

    state_id: str
    text: str
    concerns: str
    time_context: str
    unresolved: list[str]
    source_turn_ids: list[str]


class SearchResult(BaseModel):
    """The answer to one search: documents, memories and states as the recipe asks, plus notes that say
    what was degraded or missing (a result with notes is still exactly what the graph could give)."""

    model_config = ConfigDict(frozen=True)

    recipe: str
    query: str
    profile_id: str | None
    k: int
    kappa: float
    documents: list[DocumentHit] = Field(default_factory=list)
    memories: list[MemoryHit] = Field(default_factory=list)
    states: list[StateHit] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    keywords: list[str] | None = None
    before_turn_id: str | None = None
    corpus: Corpus | None = None
    # List lengths of the channels that can return fewer candidates than their budget: `memory.keyword_matched`
    # (cards sharing a query term), `memory.keyword` (after padding), `memory.candidates` (cards ranked);
    # `knowledge.keyword` (documents) and `knowledge.budget` (the documents the fusion reads per channel).
    list_sizes: dict[str, int] = Field(default_factory=dict)


class ReadResult(BaseModel):
    """Lines start_line..end_line (inclusive, numbered from 1) of a document, as the Read tool returns them.

    `truncated` is true when the limits (100 lines, 3,000 tokens) returned less than was asked; a range
    that runs past the end of the document simply stops at its last line.
    """

    model_config = ConfigDict(frozen=True)

    doc_id: str
    title: str
    start_line: int
    end_line: int
    lines: list[str]
    text: str
    truncated: bool
    n_tokens: int
    tokenizer: str
    doc_lines: int = 0
