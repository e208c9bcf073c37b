"""Named, frozen retrieval recipes: which channels feed the document list, how memory cards are ranked,
and what a search returns. A recipe is data; `Retriever.search` runs it.

Knowledge channels: `semantic` (chunk vectors), `keyword` (full-text / BM25), `memory_linked` (documents
linked to the profile's memory cards, taken round robin over the cards in rank order). Several channels are
fused with reciprocal rank fusion, equal weights: s(d) = sum_c 1[d in L_c] / (kappa + rank_c(d)).
Memory channels rank the profile's cards (`semantic`: cosine; `keyword`: BM25; both: RRF).
The keyword channel's analyzer (`keyword_analyzer`: english or plain, query.keyword_analyzers) decides its
tokens on both lines; `keyword_padding` pads the memory line's keyword list to every candidate card (the cards
sharing no query term at BM25 score 0, ties by id) before the fusion, as a BM25 that scores every card would.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graph.errors import UsageError
from graph.plugins import load_plugins, plugin_modules
from query.errors import UnknownRecipeError
from query.keyword_analyzers import DEFAULT_ANALYZER, KeywordAnalyzerName, get_analyzer

KnowledgeChannel = Literal["semantic", "keyword", "memory_linked"]
MemoryChannel = Literal["semantic", "keyword"]
MemoryResponse = Literal["top_k", "link_expanded"]

DEFAULT_KAPPA = 60.0


class Recipe(BaseModel):
    """A frozen retrieval configuration (see the module docstring for the channels)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str
    knowledge_channels: tuple[KnowledgeChannel, ...] = ()
    memory_channels: tuple[MemoryChannel, ...] = ()
    return_memories: bool = False
    return_states: bool = False
    # the memory system whose cards the memory channels rank (a name of agents.memory's registry)
    memory_system: str = "raw_turns"
    state_system: str = "memkb"
    kappa: float = Field(default=DEFAULT_KAPPA, gt=0)
    # Documents each knowledge channel contributes to the fusion (independent of k, so that the top k of a
    # search is the prefix of a deeper search).
    channel_depth: int = Field(default=50, ge=1)
    # Chunks fetched per channel before they are grouped into documents.
    channel_chunks: int = Field(default=100, ge=1)
    # Rank the memories with the memory system's own search (query.memory_rankers) instead of the channels.
    sdk_ranking: bool = False
    # Length of the memory-linked candidate list L_mem (the round robin stops when it is full).
    linked_budget: int = Field(default=20, ge=1)
    # How a memory response is shaped: the top k cards, or (A-MEM's) the top k expanded through the notes' links
    # and capped in tokens (query.linked_memory_response)
    memory_response: MemoryResponse = "top_k"
    # The keyword channel's analyzer (query.keyword_analyzers) and whether the memory line's keyword list is
    # padded to every candidate card before the fusion (see the module docstring).
    keyword_analyzer: KeywordAnalyzerName = DEFAULT_ANALYZER
    keyword_padding: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> Recipe:
        if "memory_linked" in self.knowledge_channels and not self.memory_channels:
            raise ValueError(f"recipe {self.name}: the memory_linked channel needs memory_channels to rank cards")
        if self.return_memories and not self.memory_channels:
            raise ValueError(f"recipe {self.name}: returning memories needs memory_channels")
        if self.memory_response != "top_k" and not self.return_memories:
            raise ValueError(f"recipe {self.name}: a {self.memory_response} memory response needs return_memories")
        if len(set(self.knowledge_channels)) != len(self.knowledge_channels):
            raise ValueError(f"recipe {self.name}: a knowledge channel is listed twice")
        return self

    @property
    def needs_profile(self) -> bool:
        """True when a search with this recipe reads the profile's memories or states."""
        return self.return_memories or self.return_states or "memory_linked" in self.knowledge_channels

    @property
    def searches_knowledge(self) -> bool:
        return bool(self.knowledge_channels)

    def with_kappa(self, kappa: float) -> Recipe:
        """This recipe with another RRF constant; refuses a kappa that is not a finite number > 0."""
        if not (math.isfinite(kappa) and kappa > 0):
            raise UsageError(f"kappa must be a finite number > 0, got {kappa}")
        return self.model_copy(update={"kappa": kappa})

    def with_keyword(self, analyzer: str | None = None, padding: bool | None = None) -> Recipe:
        """This recipe with another keyword analyzer and/or padding; refuses an unknown analyzer name."""
        update: dict[str, object] = {}
        if analyzer is not None:
            update["keyword_analyzer"] = get_analyzer(analyzer).name
        if padding is not None:
            update["keyword_padding"] = padding
        return self.model_copy(update=update)

    @property
    def uses_keyword(self) -> bool:
        return "keyword" in self.knowledge_channels or "keyword" in self.memory_channels


HYBRID = Recipe(
    name="HYBRID",
    description="RRF of semantic and keyword search over the knowledge base (no memory)",
    knowledge_channels=("semantic", "keyword"),
    memory_channels=("semantic", "keyword"),
    # plain by figures (issue 29, docs/retrieval.md "The keyword channel"): +38/-6 questions at recall_any@10
    # on LoCoMo over english, level with the plain BM25 + MiniLM reference
    keyword_analyzer="plain",
)
SEMANTIC = Recipe(
    name="SEMANTIC",
    description="semantic search over the knowledge base (chunk vectors, cosine)",
    knowledge_channels=("semantic",),
    memory_channels=("semantic",),
)
KEYWORD = Recipe(
    name="KEYWORD",
    description="keyword search over the knowledge base (Lucene BM25 over chunk text and title)",
    knowledge_channels=("keyword",),
    memory_channels=("keyword",),
)
MEMKB = Recipe(
    name="MEMKB",
    description="memkb_search over Mem0's memories (as in the paper): matched memory cards, the state list, and "
    "RRF of memory-linked, semantic and keyword document lists",
    knowledge_channels=("memory_linked", "semantic", "keyword"),
    memory_channels=("semantic",),
    return_memories=True,
    return_states=True,
    memory_system="mem0",
)
MEMKB_NO_STATE = MEMKB.model_copy(
    update={"name": "MEMKB_NO_STATE", "description": "MEMKB without the state summary", "return_states": False}
)
MEMKB_NO_LINKS = MEMKB.model_copy(
    update={
        "name": "MEMKB_NO_LINKS",
        "description": "MEMKB without document links (documents from semantic and keyword search only)",
        "knowledge_channels": ("semantic", "keyword"),
    }
)
MEMKB_RAW_TURNS = MEMKB.model_copy(
    update={
        "name": "MEMKB_RAW_TURNS",
        "description": "MEMKB whose cards are verbatim user turns (raw_turns: built without an LLM)",
        "memory_system": "raw_turns",
    }
)
RECIPES: dict[str, Recipe] = {}
# name -> place in the listing (`parse_recipes("all")`, help texts): registration order unless a rank is given
_RANKS: dict[str, float] = {}


def register_recipe(recipe: Recipe, *, rank: float | None = None) -> Recipe:
    """Add a recipe to `RECIPES` (the memory systems' folders, agents/memory/<system>/declare.py, register theirs
    through here: the query room owns the names, the writing side declares them). `rank` places it in the
    listing (default: last). Registering the same recipe again is a no-op; another recipe under a taken name
    is refused."""
    existing = RECIPES.get(recipe.name)
    if existing is not None and existing != recipe:
        raise ValueError(f"recipe {recipe.name} is already registered with other settings")
    _RANKS[recipe.name] = rank if rank is not None else _RANKS.get(recipe.name, max(_RANKS.values(), default=0) + 10)
    RECIPES[recipe.name] = recipe
    ordered = sorted(RECIPES, key=lambda name: _RANKS[name])
    if list(RECIPES) != ordered:
        kept = dict(RECIPES)
        RECIPES.clear()
        RECIPES.update((name, kept[name]) for name in ordered)
    return recipe


for _rank, _recipe in enumerate((HYBRID, SEMANTIC, KEYWORD, MEMKB, MEMKB_NO_STATE, MEMKB_NO_LINKS, MEMKB_RAW_TURNS)):
    register_recipe(_recipe, rank=10 * _rank)


# name prefix (upper case) -> the recipe of one member of a family of memory systems made on demand (the
# memory adapters' `HTTP:<NAME>`, registered by agents/memory/adapter/declare.py)
RECIPE_FAMILIES: dict[str, Callable[[str], Recipe]] = {}


def register_recipe_family(prefix: str, make: Callable[[str], Recipe]) -> None:
    """Names `<PREFIX><member>` resolve to `make(member)` in `get_recipe`."""
    RECIPE_FAMILIES[prefix.upper()] = make


def get_recipe(name: str | Recipe) -> Recipe:
    """The named recipe (case-insensitive; `-` and `_` are the same); a Recipe is returned as is. A name with a
    family's prefix (`HTTP:<NAME>`: the recipe of memory adapter `http:<name>`) is made by the family.

    Raises UnknownRecipeError listing the names."""
    if isinstance(name, Recipe):
        return name
    for prefix, make in RECIPE_FAMILIES.items():
        if name.strip().upper().startswith(prefix) and len(name.strip()) > len(prefix):
            return make(name.strip()[len(prefix) :])
    key = name.strip().upper().replace("-", "_")
    recipe = RECIPES.get(key)
    if recipe is None and plugin_modules():
        load_plugins()  # a plug-in's recipe (graph.plugins): registered when its module is imported
        recipe = RECIPES.get(key)
    if recipe is None:
        raise UnknownRecipeError(f"unknown recipe {name!r}; choose one of {', '.join(RECIPES)}")
    return recipe


def parse_recipes(text: str) -> list[Recipe]:
    """`HYBRID,MEMKB` (or `all`) -> recipes, in the given order without repeats."""
    if text.strip().lower() == "all":
        load_plugins()
        return list(RECIPES.values())
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise UnknownRecipeError(f"no recipe named in {text!r}; choose from {', '.join(RECIPES)} or `all`")
    return list({get_recipe(n).name: get_recipe(n) for n in names}.values())


def keyword_channel_record(recipes: list[Recipe]) -> dict[str, dict[str, object]]:
    """Recipe name -> its keyword channel (analyzer name and definition, padding) for the recipes with a keyword
    channel on either line: what a run record keeps, so a run says what "keyword" meant."""
    out: dict[str, dict[str, object]] = {}
    for recipe in recipes:
        if "keyword" in recipe.knowledge_channels or "keyword" in recipe.memory_channels:
            analyzer = get_analyzer(recipe.keyword_analyzer)
            out[recipe.name] = {
                "analyzer": analyzer.name,
                "definition": analyzer.definition(),
                "fulltext_index": analyzer.fulltext_index,
                "padding": recipe.keyword_padding,
            }
    return out
