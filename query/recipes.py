"""Named, frozen retrieval recipes: which channels feed the document list, how memory cards are ranked,
and what a search returns. A recipe is data; `Retriever.search` runs it.

A recipe has three parts, one per kind of context a search can give:
- `knowledge` (`KnowledgePart`): the document list. Channels `semantic` (chunk vectors), `keyword` (full-text /
  BM25), `memory_linked` (documents linked to the profile's memory cards, taken round robin over the cards in rank
  order). Several channels are fused with reciprocal rank fusion, equal weights:
  s(d) = sum_c 1[d in L_c] / (kappa + rank_c(d)).
- `memory` (`MemoryPart`): which memory system's cards are ranked and how (`semantic`: cosine; `keyword`: BM25;
  both: RRF; or the system's own search), whether they are returned and how the response is shaped.
- `state` (`StatePart`): whether the profile's active states are returned, and from which state system.
`kappa` (the RRF constant) and `keyword_analyzer` (english or plain, query.keyword_analyzers: the keyword
channel's tokens) serve both lines. The memory part's `keyword_padding` pads the keyword lists before the fusion:
the memory line's to every candidate card (the cards sharing no query term at BM25 score 0, ties by id), as a
BM25 that scores every card would, and the knowledge line's to the channel depth (documents by id at score 0).

The flat names of the parts' settings (`knowledge_channels`, `memory_system`, `return_states`...) are the
recipe's read-only shorthands, and still build a recipe (`Recipe(name=..., memory_system="mem0")`,
`model_copy(update={"memory_system": ...})`); a recipe dumps in that flat form, so every record written with it
(the retrieval evaluation's recipe list) keeps its shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

from graph.errors import UsageError
from graph.plugins import load_plugins, plugin_modules
from query.errors import UnknownRecipeError
from query.keyword_analyzers import DEFAULT_ANALYZER, KeywordAnalyzerName, get_analyzer

KnowledgeChannel = Literal["semantic", "keyword", "memory_linked"]
MemoryChannel = Literal["semantic", "keyword"]
MemoryResponse = Literal["top_k", "link_expanded"]

DEFAULT_KAPPA = 60.0


class KnowledgePart(BaseModel):
    """Which channels feed the document list, and how deep each one reads."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    channels: tuple[KnowledgeChannel, ...] = ()
    # Documents each channel contributes to the fusion (independent of k, so that the top k of a search is the
    # prefix of a deeper search).
    depth: int = Field(default=50, ge=1)
    # Chunks fetched per channel before they are grouped into documents.
    chunks: int = Field(default=100, ge=1)
    # Length of the memory-linked candidate list L_mem (the round robin stops when it is full).
    linked_budget: int = Field(default=20, ge=1)


class MemoryPart(BaseModel):
    """Whose memory cards are ranked, how, and whether (and in what shape) they are returned."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    channels: tuple[MemoryChannel, ...] = ()
    # the memory system whose cards the channels rank (a name of agents.memory's registry)
    system: str = "raw_turns"
    returned: bool = False
    # Rank the memories with the memory system's own search (query.memory_rankers) instead of the channels.
    sdk_ranking: bool = False
    # How a memory response is shaped: the top k cards, or (A-MEM's) the top k expanded through the notes' links
    # and capped in tokens (query.linked_memory_response)
    response: MemoryResponse = "top_k"
    # Whether the keyword lists are padded before the fusion: the memory line's to every candidate card, the
    # knowledge line's to the channel depth (score 0, ties by id).
    keyword_padding: bool = False


class StatePart(BaseModel):
    """Whether the profile's active states are returned, and which state system holds them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    returned: bool = False
    system: str = "memkb"


# flat name -> (part, the part's field), in the order a recipe dumps them (the record format of every recipe)
_FLAT: dict[str, tuple[str, str]] = {
    "knowledge_channels": ("knowledge", "channels"),
    "memory_channels": ("memory", "channels"),
    "return_memories": ("memory", "returned"),
    "return_states": ("state", "returned"),
    "memory_system": ("memory", "system"),
    "state_system": ("state", "system"),
    "kappa": ("", "kappa"),
    "channel_depth": ("knowledge", "depth"),
    "channel_chunks": ("knowledge", "chunks"),
    "sdk_ranking": ("memory", "sdk_ranking"),
    "linked_budget": ("knowledge", "linked_budget"),
    "memory_response": ("memory", "response"),
    "keyword_analyzer": ("", "keyword_analyzer"),
    "keyword_padding": ("memory", "keyword_padding"),
}
_PARTS = ("knowledge", "memory", "state")


class Recipe(BaseModel):
    """A frozen retrieval configuration: its knowledge, memory and state parts (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str
    knowledge: KnowledgePart = KnowledgePart()
    memory: MemoryPart = MemoryPart()
    state: StatePart = StatePart()
    # the RRF constant of both lines' fusions
    kappa: float = Field(default=DEFAULT_KAPPA, gt=0)
    # the keyword channel's analyzer on both lines (query.keyword_analyzers)
    keyword_analyzer: KeywordAnalyzerName = DEFAULT_ANALYZER

    @model_validator(mode="before")
    @classmethod
    def _parts_from_flat_names(cls, data: Any) -> Any:
        """Flat names (`memory_system="mem0"`) set their part's field; a flat name wins over the same field of a
        part given beside it."""
        if not isinstance(data, Mapping) or not any(key in _FLAT and _FLAT[key][0] for key in data):
            return data
        out = dict(data)
        parts: dict[str, dict[str, Any]] = {}
        for part in _PARTS:
            given = out.pop(part, None)
            parts[part] = dict(given) if given is not None else {}
        for key in [k for k in out if k in _FLAT and _FLAT[k][0]]:
            part, part_field = _FLAT[key]
            parts[part][part_field] = out.pop(key)
        return {**out, **{part: fields for part, fields in parts.items() if fields}}

    @model_serializer(mode="plain")
    def _flat_record(self) -> dict[str, Any]:
        """The recipe as a record: its name, description and every setting under its flat name."""
        out: dict[str, Any] = {"name": self.name, "description": self.description}
        for key, (part, part_field) in _FLAT.items():
            out[key] = getattr(getattr(self, part) if part else self, part_field)
        return out

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

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with `update` applied (flat names or parts) and checked as a new recipe would be."""
        if not update:
            return super().model_copy(deep=deep)
        return self.model_validate({**dict(self), **update})

    # --- the parts' settings under their flat names (read only) ----------------------------------------

    @property
    def knowledge_channels(self) -> tuple[KnowledgeChannel, ...]:
        return self.knowledge.channels

    @property
    def channel_depth(self) -> int:
        return self.knowledge.depth

    @property
    def channel_chunks(self) -> int:
        return self.knowledge.chunks

    @property
    def linked_budget(self) -> int:
        return self.knowledge.linked_budget

    @property
    def memory_channels(self) -> tuple[MemoryChannel, ...]:
        return self.memory.channels

    @property
    def memory_system(self) -> str:
        return self.memory.system

    @property
    def return_memories(self) -> bool:
        return self.memory.returned

    @property
    def sdk_ranking(self) -> bool:
        return self.memory.sdk_ranking

    @property
    def memory_response(self) -> MemoryResponse:
        return self.memory.response

    @property
    def keyword_padding(self) -> bool:
        return self.memory.keyword_padding

    @property
    def return_states(self) -> bool:
        return self.state.returned

    @property
    def state_system(self) -> str:
        return self.state.system

    # --- what follows from the parts ------------------------------------------------------------------

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
    knowledge=KnowledgePart(channels=("semantic", "keyword")),
    memory=MemoryPart(channels=("semantic", "keyword")),
    # plain by figures (issue 29, docs/retrieval.md "The keyword channel"): +38/-6 questions at recall_any@10
    # on LoCoMo over english, level with the plain BM25 + MiniLM reference
    keyword_analyzer="plain",
)
SEMANTIC = Recipe(
    name="SEMANTIC",
    description="semantic search over the knowledge base (chunk vectors, cosine)",
    knowledge=KnowledgePart(channels=("semantic",)),
    memory=MemoryPart(channels=("semantic",)),
)
KEYWORD = Recipe(
    name="KEYWORD",
    description="keyword search over the knowledge base (Lucene BM25 over chunk text and title)",
    knowledge=KnowledgePart(channels=("keyword",)),
    memory=MemoryPart(channels=("keyword",)),
)
MEMKB = Recipe(
    name="MEMKB",
    description="memkb_search over Mem0's memories (as in the paper): matched memory cards, the state list, and "
    "RRF of memory-linked, semantic and keyword document lists",
    knowledge=KnowledgePart(channels=("memory_linked", "semantic", "keyword")),
    memory=MemoryPart(channels=("semantic",), system="mem0", returned=True),
    state=StatePart(returned=True),
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
