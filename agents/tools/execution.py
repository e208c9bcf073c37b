"""Running the agent's tool calls against the retriever and rendering what the model sees.

Every outcome records the returned ids (documents with line ranges, memories, states) so that the
ToolCalled event links the call to those nodes; a call that fails (bad arguments, unknown document, bad
range) returns its error text to the model and is recorded with ok=false.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from agents.tools.definitions import (
    ARG_MODELS,
    KNOWLEDGE_TOOLS,
    MAX_K,
    MAX_READ_LINES,
    MEMORY_TOOLS,
    KbSearchArgs,
    MemorySearchArgs,
    ReadArgs,
)
from graph.events import ReturnedRef


class SearchBackend(Protocol):
    """What the tools need from `query.retriever.Retriever`."""

    def search(
        self,
        recipe: Any,
        query: str,
        *,
        profile_id: str | None = None,
        k: int = 5,
        keywords: list[str] | None = None,
        before_turn_id: str | None = None,
    ) -> Any: ...

    def read(self, doc_id: str, start_line: int = 1, n_lines: int = 100) -> Any: ...


@dataclass(frozen=True)
class ToolScope:
    """Whose memory a call may see: the item's profile, and the last turn before the request (if any)."""

    profile_id: str
    before_turn_id: str | None = None


@dataclass
class ToolOutcome:
    tool: str
    arguments: dict[str, Any]
    ok: bool
    response: str
    recipe: str | None = None
    error: str | None = None
    returned: list[ReturnedRef] = field(default_factory=list)
    read_lines: int = 0


def parse_arguments(tool: str, raw: str) -> tuple[dict[str, Any], BaseModel | None, str | None]:
    """(arguments as recorded, validated model or None, error text or None)."""
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        return {"_raw": raw[:2000]}, None, f"the arguments are not valid JSON ({exc.msg} at position {exc.pos})"
    if not isinstance(value, dict):
        return {"_raw": raw[:2000]}, None, "the arguments must be a JSON object"
    model = ARG_MODELS.get(tool)
    if model is None:
        return value, None, f"unknown tool {tool!r}"
    try:
        return value, model.model_validate(value), None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors())
        return value, None, f"invalid arguments: {problems}"


def execute_tool(
    backend: SearchBackend, tool: str, raw_arguments: str, *, recipe: str | None, scope: ToolScope
) -> ToolOutcome:
    """Run one tool call; never raises for a problem the model caused (it gets the error text instead)."""
    from query.errors import QueryError

    arguments, parsed, problem = parse_arguments(tool, raw_arguments)
    if parsed is None:
        return _failed(tool, arguments, recipe, problem or "invalid call")
    try:
        if isinstance(parsed, ReadArgs):
            return _read(backend, tool, arguments, parsed)
        if isinstance(parsed, KbSearchArgs | MemorySearchArgs):
            return _search(backend, tool, arguments, parsed, recipe=recipe, scope=scope)
    except QueryError as exc:
        return _failed(tool, arguments, recipe, str(exc))
    return _failed(tool, arguments, recipe, f"tool {tool!r} cannot be run")


def refused_call(tool: str, raw_arguments: str, error: str) -> ToolOutcome:
    """A call the agent loop does not run (over the per-round limit, or a tool the method does not offer)."""
    arguments, _, _ = parse_arguments(tool, raw_arguments)
    return _failed(tool, arguments, None, error)


def _failed(tool: str, arguments: dict[str, Any], recipe: str | None, error: str) -> ToolOutcome:
    return ToolOutcome(
        tool=tool,
        arguments=arguments,
        ok=False,
        recipe=recipe,
        error=error,
        response=json.dumps({"error": error}, ensure_ascii=False),
    )


def _search(
    backend: SearchBackend,
    tool: str,
    arguments: dict[str, Any],
    args: KbSearchArgs | MemorySearchArgs,
    *,
    recipe: str | None,
    scope: ToolScope,
) -> ToolOutcome:
    if recipe is None:
        return _failed(tool, arguments, recipe, f"{tool} is not bound to a retrieval recipe in this method")
    notes: list[str] = []
    k = args.k
    if k > MAX_K:
        notes.append(f"k={k} is above the limit; {MAX_K} results returned")
        k = MAX_K
    keywords = args.keywords if isinstance(args, KbSearchArgs) and args.keywords else None
    result = backend.search(
        recipe, args.query, profile_id=scope.profile_id, k=k, keywords=keywords, before_turn_id=scope.before_turn_id
    )
    returned: list[ReturnedRef] = []
    body: dict[str, Any] = {}
    if tool in MEMORY_TOOLS:
        body["memories"] = [_memory_body(tool, m) for m in result.memories]
        returned.extend(
            ReturnedRef(kind="memory", id=m.memory_id, rank=i) for i, m in enumerate(result.memories, start=1)
        )
    if tool == "memkb_search" and result.states:
        body["states"] = [
            {
                "state_id": s.state_id,
                "text": s.text,
                "concerns": s.concerns,
                "time_context": s.time_context,
                "unresolved": list(s.unresolved),
                "source_turn_ids": list(s.source_turn_ids),
            }
            for s in result.states
        ]
        returned.extend(ReturnedRef(kind="state", id=s.state_id, rank=i) for i, s in enumerate(result.states, start=1))
    if tool in KNOWLEDGE_TOOLS:
        body["documents"] = [
            {
                "rank": d.rank,
                "doc_id": d.doc_id,
                "title": d.title,
                "lines": f"{d.start_line}-{d.end_line}",
                "snippet": d.snippet,
            }
            for d in result.documents
        ]
        returned.extend(
            ReturnedRef(kind="document", id=d.doc_id, rank=i, start_line=d.start_line, end_line=d.end_line)
            for i, d in enumerate(result.documents, start=1)
        )
    notes.extend(result.notes)
    if notes:
        body["notes"] = notes
    return ToolOutcome(
        tool=tool,
        arguments=arguments,
        ok=True,
        recipe=recipe,
        response=json.dumps(body, ensure_ascii=False),
        returned=returned,
    )


def _memory_body(tool: str, memory: Any) -> dict[str, Any]:
    """A matched memory card; memkb_search cards also carry their linked document ids (Sec. 4.1), for recipes
    that use the links (the retriever leaves them empty otherwise)."""
    body: dict[str, Any] = {
        "memory_id": memory.memory_id,
        "text": memory.text,
        "source_turn_ids": list(memory.source_turn_ids),
    }
    if tool == "memkb_search":
        body["linked_doc_ids"] = list(memory.linked_doc_ids)
    return body


def _read(backend: SearchBackend, tool: str, arguments: dict[str, Any], args: ReadArgs) -> ToolOutcome:
    notes: list[str] = []
    n_lines = args.n_lines
    if n_lines > MAX_READ_LINES:
        notes.append(f"n_lines={n_lines} is above the limit; at most {MAX_READ_LINES} lines returned")
        n_lines = MAX_READ_LINES
    result = backend.read(args.doc_id, args.start_line, n_lines)
    lines = list(result.lines)
    numbered = "\n".join(f"{result.start_line + i}: {line}" for i, line in enumerate(lines))
    body: dict[str, Any] = {
        "doc_id": result.doc_id,
        "title": result.title,
        "start_line": result.start_line,
        "end_line": result.end_line,
        "truncated": result.truncated,
        "text": numbered,
    }
    if result.truncated:
        notes.append(
            f"stopped at line {result.end_line} (limits: {MAX_READ_LINES} lines, 3,000 {result.tokenizer} tokens); "
            f"call read again from line {result.end_line + 1} for more"
        )
    if notes:
        body["notes"] = notes
    # Only a Read that returned text links to the document (Read Recall counts non-empty reads).
    non_empty = any(line.strip() for line in lines)
    returned = (
        [ReturnedRef(kind="document", id=result.doc_id, rank=1, start_line=result.start_line, end_line=result.end_line)]
        if non_empty
        else []
    )
    return ToolOutcome(
        tool=tool,
        arguments=arguments,
        ok=True,
        recipe=None,
        response=json.dumps(body, ensure_ascii=False),
        returned=returned,
        read_lines=len(lines) if non_empty else 0,
    )
