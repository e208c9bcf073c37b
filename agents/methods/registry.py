"""The method registry. A method is data: a label, tool bindings (tool name -> retrieval recipe), whether the
state summary S(H) goes into the system prompt, whether the answer prompt carries the source-attribution
constraint (`source_attribution`: MemKB and its ablations), and whether it is one of the paper's five compared
methods. What it reads is derived from its recipes: the memory system (the recipes' `memory_system`), whether it needs
S(H) (a recipe returns states, or S(H) is in the prompt) and whether MemKB's document links must exist (a recipe
has the memory_linked channel).

CLI names match recipe names (`--methods MEMKB,HYBRID`); `--methods all` runs the paper's five, `every` all:

| CLI name | paper's method | tools (recipe) | memory |
| --- | --- | --- | --- |
| HYBRID | No Memory + Hybrid | kb_search (HYBRID), read | - |
| MEM0 | Mem0 + Hybrid | memory_search (MEM0), kb_search (HYBRID), read | mem0 |
| GRAPHITI | Graphiti + Hybrid | memory_search (GRAPHITI), kb_search (HYBRID), read | graphiti |
| AMEM | A-MEM + Hybrid | memory_search (AMEM), kb_search (HYBRID), read | amem |
| MEMKB | MemKB (on Mem0's memories) | memkb_search (MEMKB), read; S(H) in the system prompt | mem0 |
| SEMANTIC | No Memory + Semantic | kb_search (SEMANTIC), read | - |
| KEYWORD | No Memory + Keyword | kb_search (KEYWORD), read | - |
| RAW_TURNS | Raw turns + Hybrid | memory_search (RAW_TURNS), kb_search (HYBRID), read | raw_turns |
| MEMKB_RAW_TURNS | MemKB on raw-turn cards | memkb_search (MEMKB_RAW_TURNS), read; S(H) in the prompt | raw_turns |
| MEMKB_NO_STATE | MemKB without state summary | memkb_search (MEMKB_NO_STATE), read | mem0 |
| MEMKB_NO_LINKS | MemKB without document links | memkb_search (MEMKB_NO_LINKS), read; S(H) in the prompt | mem0 |
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, computed_field

from agents.tools.definitions import TOOL_NAMES
from graph.errors import BadInputError
from graph.plugins import load_plugins, plugin_modules
from query.recipes import Recipe, get_recipe


class UnknownMethodError(BadInputError):
    """No registered method has this name."""


class ToolBinding(BaseModel):
    """A tool offered to the agent; search tools name the retrieval recipe they run."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    tool: str
    recipe: str | None = None


class MethodSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    label: str
    description: str
    tools: tuple[ToolBinding, ...]
    state_in_prompt: bool = False
    # one of the five methods of the paper's headline comparison (`--methods all`)
    in_paper: bool = False
    state_system: str = "memkb"
    # the answer prompt carries the source-attribution constraint (Sec. 4.3; MemKB and its ablations, App. B.3)
    source_attribution: bool = False
    # the method a report pairs this one with first, as the paper's main table does (MemKB vs Mem0 + Hybrid)
    headline_baseline: str | None = None
    # the floor of a comparison (No Memory + Hybrid): reported beside the headline pair, never as its baseline
    floor: bool = False

    def recipes(self) -> list[Recipe]:
        return [get_recipe(b.recipe) for b in self.tools if b.recipe]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def memory_system(self) -> str | None:
        """The memory system whose memories the method's tools read (None: no memory of the user)."""
        systems = [r.memory_system for r in self.recipes() if r.needs_profile]
        return systems[0] if systems else None

    @property
    def needs_states(self) -> bool:
        """True when the method shows S(H) (prompt or search responses) and so needs a state summary."""
        return self.state_in_prompt or any(r.return_states for r in self.recipes())

    @property
    def needs_memory_links(self) -> bool:
        """True when a recipe reads MemKB's card-document links (the memory_linked channel)."""
        return any("memory_linked" in r.knowledge_channels for r in self.recipes())

    def recipe_for(self, tool: str) -> str | None:
        for binding in self.tools:
            if binding.tool == tool:
                return binding.recipe
        return None

    def tool_names(self) -> list[str]:
        return [b.tool for b in self.tools]


METHODS: dict[str, MethodSpec] = {}
_ALIASES: dict[str, str] = {}
# name -> place in the listing (`--methods every`, help texts): registration order unless a rank is given
_RANKS: dict[str, float] = {}


def register_method(spec: MethodSpec, *aliases: str, rank: float | None = None) -> MethodSpec:
    """Add a method (and alternative names for it); its tools must be known tool names. `rank` places it in the
    listing (default: last). A memory system's folder registers its methods here (agents/memory/<system>/
    declare.py)."""
    unknown = [b.tool for b in spec.tools if b.tool not in TOOL_NAMES]
    if unknown:
        raise ValueError(f"method {spec.name}: unknown tool(s) {unknown}; known tools: {', '.join(TOOL_NAMES)}")
    systems = {r.memory_system for r in spec.recipes() if r.needs_profile}
    if len(systems) > 1:
        raise ValueError(f"method {spec.name}: its tools read several memory systems {sorted(systems)}; use one")
    _RANKS[spec.name] = rank if rank is not None else _RANKS.get(spec.name, max(_RANKS.values(), default=0) + 10)
    METHODS[spec.name] = spec
    ordered = sorted(METHODS, key=lambda name: _RANKS[name])
    if list(METHODS) != ordered:
        kept = dict(METHODS)
        METHODS.clear()
        METHODS.update((name, kept[name]) for name in ordered)
    for alias in aliases:
        _ALIASES[alias.upper()] = spec.name
    return spec


def get_method(name: str) -> MethodSpec:
    """The method named `name` (case-insensitive, `-` same as `_`, aliases allowed)."""
    key = name.strip().upper().replace("-", "_")
    key = _ALIASES.get(key, key)
    spec = METHODS.get(key)
    if spec is None and plugin_modules():
        load_plugins()  # a plug-in's method (graph.plugins): registered when its module is imported
        key = _ALIASES.get(key, key)
        spec = METHODS.get(key)
    if spec is None:
        raise UnknownMethodError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
    return spec


def parse_methods(text: str) -> list[MethodSpec]:
    """`MEMKB,HYBRID` -> method specs in order without repeats; `all` -> the paper's five compared methods;
    `every` -> every registered method."""
    if text.strip().lower() == "all":
        return [m for m in METHODS.values() if m.in_paper]
    if text.strip().lower() == "every":
        load_plugins()
        return list(METHODS.values())
    names = [part for part in (p.strip() for p in text.split(",")) if part]
    if not names:
        raise UnknownMethodError(f"no method named in {text!r}; choose from {', '.join(METHODS)}")
    out: dict[str, MethodSpec] = {}
    for name in names:
        spec = get_method(name)
        out.setdefault(spec.name, spec)
    return list(out.values())


READ = ToolBinding(tool="read")
HYBRID_KB = ToolBinding(tool="kb_search", recipe="HYBRID")

register_method(
    MethodSpec(
        name="HYBRID",
        label="No Memory + Hybrid",
        description="knowledge search (RRF of semantic and keyword) and Read; no memory of the user",
        tools=(HYBRID_KB, READ),
        in_paper=True,
        floor=True,
    ),
    "NO_MEMORY_HYBRID",
    "NO_MEMORY",
    rank=0,
)
register_method(
    MethodSpec(
        name="MEMKB",
        label="MemKB",
        description="memkb_search over Mem0's memories (memory cards, the state list S(H), RRF of memory-linked, "
        "semantic and keyword documents) and Read; S(H) in the system prompt",
        tools=(ToolBinding(tool="memkb_search", recipe="MEMKB"), READ),
        source_attribution=True,
        state_in_prompt=True,
        in_paper=True,
        headline_baseline="MEM0",
    ),
    rank=40,
)
register_method(
    MethodSpec(
        name="SEMANTIC",
        label="No Memory + Semantic",
        description="knowledge search over chunk vectors only, and Read; no memory",
        tools=(ToolBinding(tool="kb_search", recipe="SEMANTIC"), READ),
    ),
    rank=50,
)
register_method(
    MethodSpec(
        name="KEYWORD",
        label="No Memory + Keyword",
        description="keyword (full-text) knowledge search only, and Read; no memory",
        tools=(ToolBinding(tool="kb_search", recipe="KEYWORD"), READ),
    ),
    rank=60,
)
register_method(
    MethodSpec(
        name="MEMKB_RAW_TURNS",
        label="MemKB on raw turns",
        description="MemKB whose memory cards are verbatim user turns (no LLM needed to build them); S(H) in the "
        "system prompt",
        tools=(ToolBinding(tool="memkb_search", recipe="MEMKB_RAW_TURNS"), READ),
        source_attribution=True,
        state_in_prompt=True,
    ),
    rank=80,
)
register_method(
    MethodSpec(
        name="MEMKB_NO_STATE",
        label="MemKB w/o state summary",
        description="MemKB without S(H): no state list in the prompt or in search responses",
        tools=(ToolBinding(tool="memkb_search", recipe="MEMKB_NO_STATE"), READ),
        source_attribution=True,
    ),
    rank=90,
)
register_method(
    MethodSpec(
        name="MEMKB_NO_LINKS",
        label="MemKB w/o document links",
        description="MemKB whose documents come from semantic and keyword search only (memory texts and S(H) kept)",
        tools=(ToolBinding(tool="memkb_search", recipe="MEMKB_NO_LINKS"), READ),
        source_attribution=True,
        state_in_prompt=True,
    ),
    rank=100,
)
