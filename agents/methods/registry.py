"""The method registry. A method is data: a label, tool bindings (tool name -> retrieval recipe), whether the
state summary S(H) goes into the system prompt, and which memory system it reads.

CLI names match recipe names (`--methods MEMKB,HYBRID`):

| CLI name         | paper's method                 | tools (recipe)                                          |
| ---------------- | ------------------------------ | ------------------------------------------------------- |
| HYBRID           | No Memory + Hybrid             | kb_search (HYBRID), read                                |
| SEMANTIC         | No Memory + Semantic           | kb_search (SEMANTIC), read                              |
| KEYWORD          | No Memory + Keyword            | kb_search (KEYWORD), read                               |
| RAW_TURNS        | Raw turns + Hybrid             | memory_search (RAW_TURNS), kb_search (HYBRID), read     |
| MEMKB            | MemKB                          | memkb_search (MEMKB), read; S(H) in the system prompt   |
| MEMKB_NO_STATE   | MemKB without state summary    | memkb_search (MEMKB_NO_STATE), read                     |
| MEMKB_NO_LINKS   | MemKB without document links   | memkb_search (MEMKB_NO_LINKS), read; S(H) in the prompt |

Mem0, Graphiti and A-MEM plug in with `register_method(MethodSpec(name="MEM0", tools=(ToolBinding("memory_search",
"MEM0"), ToolBinding("kb_search", "HYBRID"), ToolBinding("read")), memory_system="mem0", ...))` once their
memory systems and recipes exist; nothing else changes.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from agents.tools.definitions import TOOL_NAMES


class UnknownMethodError(ValueError):
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
    memory_system: str | None = None
    needs_memory_links: bool = False
    state_system: str = "memkb"

    @property
    def needs_states(self) -> bool:
        """True when the method shows S(H) (prompt or search responses) and so needs a state summary."""
        return self.state_in_prompt or any(
            b.recipe in {"MEMKB", "MEMKB_NO_LINKS"} for b in self.tools if b.tool == "memkb_search"
        )

    def recipe_for(self, tool: str) -> str | None:
        for binding in self.tools:
            if binding.tool == tool:
                return binding.recipe
        return None

    def tool_names(self) -> list[str]:
        return [b.tool for b in self.tools]


METHODS: dict[str, MethodSpec] = {}
_ALIASES: dict[str, str] = {}


def register_method(spec: MethodSpec, *aliases: str) -> MethodSpec:
    """Add a method (and alternative names for it); its tools must be known tool names."""
    unknown = [b.tool for b in spec.tools if b.tool not in TOOL_NAMES]
    if unknown:
        raise ValueError(f"method {spec.name}: unknown tool(s) {unknown}; known tools: {', '.join(TOOL_NAMES)}")
    METHODS[spec.name] = spec
    for alias in aliases:
        _ALIASES[alias.upper()] = spec.name
    return spec


def get_method(name: str) -> MethodSpec:
    """The method named `name` (case-insensitive, `-` same as `_`, aliases allowed)."""
    key = name.strip().upper().replace("-", "_")
    key = _ALIASES.get(key, key)
    spec = METHODS.get(key)
    if spec is None:
        raise UnknownMethodError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
    return spec


def parse_methods(text: str) -> list[MethodSpec]:
    """`MEMKB,HYBRID` -> method specs in order without repeats; `all` -> every registered method."""
    if text.strip().lower() == "all":
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

register_method(
    MethodSpec(
        name="HYBRID",
        label="No Memory + Hybrid",
        description="knowledge search (RRF of semantic and keyword) and Read; no memory of the user",
        tools=(ToolBinding(tool="kb_search", recipe="HYBRID"), READ),
    ),
    "NO_MEMORY_HYBRID",
    "NO_MEMORY",
)
register_method(
    MethodSpec(
        name="SEMANTIC",
        label="No Memory + Semantic",
        description="knowledge search over chunk vectors only, and Read; no memory",
        tools=(ToolBinding(tool="kb_search", recipe="SEMANTIC"), READ),
    ),
)
register_method(
    MethodSpec(
        name="KEYWORD",
        label="No Memory + Keyword",
        description="keyword (full-text) knowledge search only, and Read; no memory",
        tools=(ToolBinding(tool="kb_search", recipe="KEYWORD"), READ),
    ),
)
register_method(
    MethodSpec(
        name="RAW_TURNS",
        label="Raw turns + Hybrid",
        description="memory search over verbatim user-turn cards, separate Hybrid knowledge search, and Read",
        tools=(
            ToolBinding(tool="memory_search", recipe="RAW_TURNS"),
            ToolBinding(tool="kb_search", recipe="HYBRID"),
            READ,
        ),
        memory_system="raw_turns",
    ),
    "RAW_TURNS_HYBRID",
)
register_method(
    MethodSpec(
        name="MEMKB",
        label="MemKB",
        description="memkb_search (memory cards, the state list S(H), RRF of memory-linked, semantic and keyword "
        "documents) and Read; S(H) in the system prompt",
        tools=(ToolBinding(tool="memkb_search", recipe="MEMKB"), READ),
        state_in_prompt=True,
        memory_system="raw_turns",
        needs_memory_links=True,
    ),
)
register_method(
    MethodSpec(
        name="MEMKB_NO_STATE",
        label="MemKB w/o state summary",
        description="MemKB without S(H): no state list in the prompt or in search responses",
        tools=(ToolBinding(tool="memkb_search", recipe="MEMKB_NO_STATE"), READ),
        memory_system="raw_turns",
        needs_memory_links=True,
    ),
)
register_method(
    MethodSpec(
        name="MEMKB_NO_LINKS",
        label="MemKB w/o document links",
        description="MemKB whose documents come from semantic and keyword search only (memory texts and S(H) kept)",
        tools=(ToolBinding(tool="memkb_search", recipe="MEMKB_NO_LINKS"), READ),
        state_in_prompt=True,
        memory_system="raw_turns",
    ),
)
