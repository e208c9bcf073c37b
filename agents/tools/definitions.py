"""Tool definitions offered to the answering agent, with their argument models and the paper's limits:
search returns 5 documents by default and at most 20; Read returns at most 100 lines (and 3,000 tokens,
enforced by the Read tool itself)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_K = 5
MAX_K = 20
MAX_READ_LINES = 100

# Tools whose responses carry knowledge-base documents (they count for search hit rates).
KNOWLEDGE_TOOLS: tuple[str, ...] = ("kb_search", "memkb_search")
MEMORY_TOOLS: tuple[str, ...] = ("memory_search", "memkb_search")


class KbSearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(min_length=1, description="what to look for, in natural language")
    keywords: list[str] = Field(default_factory=list, description="optional exact terms for the keyword channel")
    k: int = Field(default=DEFAULT_K, ge=1, description=f"documents to return (default {DEFAULT_K}, at most {MAX_K})")


class MemorySearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(min_length=1, description="what to recall about the user")
    k: int = Field(default=DEFAULT_K, ge=1, description=f"memories to return (default {DEFAULT_K}, at most {MAX_K})")


class ReadArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    doc_id: str = Field(min_length=1, description="a document id returned by a search")
    start_line: int = Field(default=1, ge=1, description="first line to read (lines are numbered from 1)")
    n_lines: int = Field(
        default=MAX_READ_LINES, ge=1, description=f"how many lines (at most {MAX_READ_LINES}; 3,000 tokens)"
    )


ARG_MODELS: dict[str, type[BaseModel]] = {
    "kb_search": KbSearchArgs,
    "memkb_search": KbSearchArgs,
    "memory_search": MemorySearchArgs,
    "read": ReadArgs,
}
TOOL_NAMES: tuple[str, ...] = tuple(ARG_MODELS)

_DESCRIPTIONS = {
    "kb_search": "Search the knowledge base. Returns documents, each with its id, title, a snippet and the "
    "snippet's line range.",
    "memkb_search": "Search the user's memory and the knowledge base together. Returns the memories that match "
    "(with the ids of the conversation turns they come from), the user's state list, and knowledge-base "
    "documents each with id, title, snippet and line range.",
    "memory_search": "Search what the user said in earlier conversations. Returns matching memories with the ids "
    "of the turns they come from.",
    "read": "Read lines of a knowledge-base document by id (at most 100 lines and 3,000 tokens per call).",
}


def tool_definition(name: str) -> dict[str, Any]:
    """The OpenAI `tools` entry of one tool (JSON Schema parameters from its argument model)."""
    schema = ARG_MODELS[name].model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    if name in ("kb_search", "memkb_search", "memory_search"):
        schema["properties"]["k"]["maximum"] = MAX_K
    if name == "read":
        schema["properties"]["n_lines"]["maximum"] = MAX_READ_LINES
    return {"type": "function", "function": {"name": name, "description": _DESCRIPTIONS[name], "parameters": schema}}
