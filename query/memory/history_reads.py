"""The history reads of a memory card: the documents the assistant read while answering the card's turns.

Definition: a card's source user turn is answered by the assistant turns that follow it in the same
session, up to (not including) the next user turn; an assistant source turn answers for itself. Its history
reads are the documents returned by `read` tool calls of those turns (the turn's recorded tool calls, in
call order) plus any `EXPOSED {via: 'read'}` relationship of those turns, in history order without repeats.
A read naming a document that is not in the graph contributes no link and is counted as unresolved.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from neo4j import Driver

from graph.cypher_files import load_cypher

SNIPPET_CHARS = 300


@dataclass(frozen=True)
class HistoryRead:
    doc_id: str
    title: str
    start_line: int | None
    end_line: int | None
    snippet: str


@dataclass
class CardReads:
    reads: list[HistoryRead] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)


def _tool_call_reads(tool_calls_json: str | None) -> list[tuple[str, int | None, int | None]]:
    """(doc id, start line, end line) of each document returned by a read call, in call order."""
    if not tool_calls_json:
        return []
    try:
        calls = json.loads(tool_calls_json)
    except json.JSONDecodeError:
        return []
    out: list[tuple[str, int | None, int | None]] = []
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, dict) or call.get("tool") != "read":
            continue
        arguments: dict[str, Any] = call.get("arguments") or {}
        start = arguments.get("start_line")
        n_lines = arguments.get("n_lines")
        start_line = int(start) if isinstance(start, int) and start >= 1 else None
        end_line = start_line + int(n_lines) - 1 if start_line and isinstance(n_lines, int) and n_lines >= 1 else None
        for doc_id in call.get("returned_doc_ids") or []:
            out.append((str(doc_id), start_line, end_line))
    return out


def card_history_reads(driver: Driver, database: str, memory_ids: Sequence[str]) -> dict[str, CardReads]:
    """memory id -> its history reads (resolved, with title and a snippet of the read span) and the ids of
    reads that name no document in the graph."""
    if not memory_ids:
        return {}
    with driver.session(database=database) as session:
        rows = list(session.run(load_cypher("memory/answering_turns"), memory_ids=list(memory_ids)))
    wanted: dict[str, list[tuple[str, int | None, int | None]]] = {mid: [] for mid in memory_ids}
    for row in rows:
        spans = wanted[row["memory_id"]]
        # Exposures carry the exact line range returned; tool calls give the order (and unresolved ids).
        exposed = {r["doc_id"]: (r["start_line"], r["end_line"]) for r in row["reads"] if r is not None}
        for doc_id, start, end in _tool_call_reads(row["tool_calls"]):
            spans.append((doc_id, *exposed.get(doc_id, (start, end))))
        spans.extend((doc_id, start, end) for doc_id, (start, end) in exposed.items())
    doc_ids = sorted({doc_id for spans in wanted.values() for doc_id, _, _ in spans})
    docs: dict[str, tuple[str, list[str]]] = {}
    if doc_ids:
        with driver.session(database=database) as session:
            for r in session.run(load_cypher("memory/document_spans"), doc_ids=doc_ids):
                docs[r["doc_id"]] = (r["title"], str(r["text"]).split("\n"))
    out: dict[str, CardReads] = {}
    for mid, spans in wanted.items():
        card = CardReads()
        seen: set[str] = set()
        for doc_id, start, end in spans:
            if doc_id in seen:
                continue
            seen.add(doc_id)
            if doc_id not in docs:
                card.unresolved.append(doc_id)
                continue
            title, lines = docs[doc_id]
            first = max(1, min(start or 1, len(lines)))
            last = max(first, min(end or first + 4, len(lines)))
            snippet = " ".join(line.strip() for line in lines[first - 1 : last] if line.strip())[:SNIPPET_CHARS]
            card.reads.append(HistoryRead(doc_id, title, start, end, snippet))
        out[mid] = card
    return out
