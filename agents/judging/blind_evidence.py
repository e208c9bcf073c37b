"""What the blind answer-quality judge sees of an attempt's tool calls: one shape whatever the method (App. D.2,
"a separate, blind call"; issue 22 item 5).

The accuracy and error-analysis judges read the calls as the agent made them (`reference.render_evidence`) and
the S(H) block of its prompt (App. D.1: the agent-visible evidence includes the provided states). For the blind
judge every trace that tells methods apart goes:

* a call is split into its returns, each an entry of its own in the order seen: memories found, documents found,
  a read. One `memkb_search` (memories and documents together) and a `memory_search` followed by a `kb_search`
  become the same two entries;
* tool names, rounds, call ordinals and arguments other than the query go (`keywords` and `k` exist for some
  tools only); a failed call keeps its error with tool names made generic and the offered-tools list cut;
* memory ids become `memory 1`, `memory 2`... in order of first appearance (ids carry the memory system's
  prefix); a memory keeps its text and the public turns it comes from;
* the state list S(H) (in the prompt and in `memkb_search` returns), each card's `linked_doc_ids` and the
  retriever's notes (which name channels, memory systems and caps) are left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

NO_CALLS = "(the assistant made no tool calls)"
MEMORIES = "search of the user's memories"
DOCUMENTS = "search of the knowledge base"

# Names that identify a tool, a memory system or a method, in error texts (the only free text kept from a call).
_MARKERS = re.compile(r"\b(?:memkb_search|kb_search|memory_search)\b")
_SYSTEM_NAMES = re.compile(r"\b(?:mem-?kb|mem0|graphiti|a-?mem|raw[_ ]turns)\w*\b", re.IGNORECASE)


def render_blind_evidence(calls: Sequence[dict[str, Any]], *, max_response_chars: int | None = None) -> str:
    """The calls as uniform numbered entries (see the module docstring); `max_response_chars` caps each entry's
    body as the judge context budget caps a return (marked in place)."""
    aliases: dict[str, str] = {}
    entries: list[tuple[str, str]] = []
    for call in calls:
        entries.extend(_entries(call, aliases))
    if not entries:
        return NO_CALLS
    out = []
    for number, (head, body) in enumerate(entries, start=1):
        if max_response_chars is not None and len(body) > max_response_chars:
            left_out = len(body) - max_response_chars
            body = body[:max_response_chars] + f" [... {left_out} characters left out: judge context budget]"
        out.append(f"{number}. {head}\n{body}")
    return "\n".join(out)


def _json(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else text
    except (TypeError, ValueError):
        return None


def blind_error(text: str) -> str:
    """An error text without the names of tools, memory systems or methods, and without the offered-tools list."""
    text = text.split("; available:", 1)[0]
    return _SYSTEM_NAMES.sub("(system)", _MARKERS.sub("search", text))


def _entries(call: dict[str, Any], aliases: dict[str, str]) -> list[tuple[str, str]]:
    args = _json(call.get("arguments") or "{}")
    args = args if isinstance(args, dict) else {}
    is_read = str(call.get("tool")) == "read"
    if not call.get("ok"):
        what = f"read {args.get('doc_id', '')}".rstrip() if is_read else f"search for {_quoted(args.get('query'))}"
        return [(f"{what} (failed)", f"   error: {blind_error(str(call.get('error') or 'failed'))}")]
    body = _json(call.get("response"))
    if not isinstance(body, dict):
        return [("a tool call", f"   {blind_error(str(call.get('response') or ''))}")]
    if is_read:
        span = f"{body.get('start_line')}-{body.get('end_line')}"
        head = f"read [{body.get('doc_id')}] {body.get('title') or ''}, lines {span}"
        return [(head, str(body.get("text") or "(no text)"))]
    query = _quoted(args.get("query"))
    entries: list[tuple[str, str]] = []
    if "memories" in body:
        lines = [_memory_line(m, aliases) for m in body.get("memories") or [] if isinstance(m, dict)]
        entries.append((f"{MEMORIES} for {query}", "\n".join(lines) or "   (nothing found)"))
    if "documents" in body:
        lines = [_document_line(d) for d in body.get("documents") or [] if isinstance(d, dict)]
        entries.append((f"{DOCUMENTS} for {query}", "\n".join(lines) or "   (nothing found)"))
    if not entries:
        entries.append((f"search for {query}", "   (nothing found)"))
    return entries


def _quoted(value: Any) -> str:
    return json.dumps(str(value or ""), ensure_ascii=False)


def _memory_line(memory: dict[str, Any], aliases: dict[str, str]) -> str:
    key = str(memory.get("memory_id") or len(aliases))
    label = aliases.setdefault(key, f"memory {len(aliases) + 1}")
    turns = ", ".join(str(t) for t in memory.get("source_turn_ids") or [])
    source = f" (from turns {turns})" if turns else ""
    return f"   - [{label}] {memory.get('text') or ''}{source}"


def _document_line(doc: dict[str, Any]) -> str:
    return f"   - [{doc.get('doc_id')}] {doc.get('title') or ''}, lines {doc.get('lines')}: {doc.get('snippet') or ''}"
