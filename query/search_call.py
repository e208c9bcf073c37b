"""One search in flight (`SearchCall`): its checked input, what its recipe asks of each channel, and what the
Retriever's steps report on the way (timings, notes, list sizes, the query vector, the history cut-off).

`check_search_input` raises the typed errors of a bad request before any work starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from query.corpus import Corpus
from query.errors import EmptyQueryError, KOutOfRangeError, ProfileRequiredError
from query.keyword_analyzers import KeywordAnalyzer
from query.memory_channels import Cutoff
from query.recipes import Recipe
from query.results import DocumentHit, MemoryHit, SearchResult, StateHit


def check_search_input(
    recipe: Recipe, query: str, profile_id: str | None, k: int, before_turn_id: str | None, max_k: int
) -> str:
    """The query's stripped text; typed errors for an empty query, k outside 1..max_k, or a missing profile."""
    text = (query or "").strip()
    if not text:
        raise EmptyQueryError(f"recipe {recipe.name}: the query is empty; give the text to search for")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k > max_k:
        raise KOutOfRangeError(f"recipe {recipe.name}: k must be an integer from 1 to {max_k}, got {k!r}")
    if recipe.needs_profile and profile_id is None:
        raise ProfileRequiredError(f"recipe {recipe.name} searches a profile's memories or states: pass profile_id")
    if before_turn_id is not None and profile_id is None:
        raise ProfileRequiredError("before_turn_id (the history cut-off) needs the profile_id it belongs to")
    return text


@dataclass
class SearchCall:
    """A search's input and plan (set before any statement runs) and its running record (filled by the steps)."""

    recipe: Recipe
    text: str
    profile_id: str | None
    k: int
    keywords: list[str] | None
    before_turn_id: str | None
    corpus: Corpus
    max_k: int
    analyzer: KeywordAnalyzer
    # documents each knowledge channel returns (a recipe with one knowledge channel: at most k)
    depth: int
    # the keyword channel's Lucene query (None: the recipe has no keyword channel, or the query no term)
    lucene: str | None = None
    # HYBRID's two channels and their fusion as one statement (query.knowledge.KnowledgeChannels.hybrid)
    one_statement: bool = False
    # the search's only work is one statement: run it in the calling thread
    alone: bool = False
    vector: np.ndarray | None = None
    n_cards: int = 0
    cutoff: Cutoff | None = None
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    list_sizes: dict[str, int] = field(default_factory=dict)

    @property
    def linked_channel(self) -> bool:
        return "memory_linked" in self.recipe.knowledge_channels

    @property
    def wants_memory(self) -> bool:
        """Memory cards are ranked: the recipe returns them, or its memory-linked channel walks them."""
        return self.recipe.return_memories or self.linked_channel

    @property
    def semantic_memory(self) -> bool:
        return self.wants_memory and "semantic" in self.recipe.memory_channels

    @property
    def needs_vector(self) -> bool:
        """Linked documents without a direct match take their chunk closest to the query vector."""
        return "semantic" in self.recipe.knowledge_channels or self.semantic_memory or self.linked_channel

    def result(self, documents: list[DocumentHit], memories: list[MemoryHit], states: list[StateHit]) -> SearchResult:
        return SearchResult(
            recipe=self.recipe.name,
            query=self.text,
            profile_id=self.profile_id,
            k=self.k,
            kappa=self.recipe.kappa,
            documents=documents,
            memories=memories,
            states=states,
            notes=self.notes,
            timings_ms={name: round(value, 3) for name, value in self.timings.items()},
            keywords=self.keywords,
            before_turn_id=self.before_turn_id,
            corpus=None if self.corpus.is_everything else self.corpus,
            list_sizes=self.list_sizes,
        )
