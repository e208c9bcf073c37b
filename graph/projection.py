"""Projection: stored events -> nodes and relationships, one named Cypher file per event type.

Events are projected in seq order; consecutive events of one type go through one UNWIND statement.
Every projection returns the keys of the rows it applied; a row whose references do not resolve is
missing from that list and fails the whole transaction with a message naming the event.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from neo4j import ManagedTransaction
from neo4j.exceptions import ClientError

from graph.cypher_files import load_cypher
from graph.errors import GraphError, UnknownEventTypeError
from graph.events import StoredEvent
from graph.hashing import canonical_json


class ProjectionError(GraphError):
    """An event could not be projected (unknown reference, duplicate id)."""


class VectorEncoder(Protocol):
    """What projections need from an encoder: identity, dimension, normalised vectors."""

    @property
    def encoder_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


# How each projection names the rows it applied (mirrors the RETURN of its Cypher file).
_ROW_KEYS: dict[str, Callable[[dict[str, Any]], str]] = {
    "DocumentIngested": lambda p: p["doc_id"],
    "DocumentChunked": lambda p: p["doc_id"],
    "DocumentsLinked": lambda p: f"{p['src_doc_id']}->{p['dst_doc_id']}",
    "ProfileCreated": lambda p: p["profile_id"],
    "FactRecorded": lambda p: p["fact_id"],
    "TopicPlanned": lambda p: p["topic_id"],
    "SessionStarted": lambda p: p["session_id"],
    "TurnAppended": lambda p: p["turn_id"],
    "FactDisclosed": lambda p: f"{p['fact_id']}@{p['turn_id']}",
    "DocumentExposed": lambda p: f"{p['doc_id']}@{p['turn_id']}",
    "ItemCreated": lambda p: p["item_id"],
    "RequirementMapped": lambda p: p["requirement_id"],
    "ItemVerified": lambda p: p["item_id"],
    "ItemAugmented": lambda p: p["item_id"],
    "MemoryWritten": lambda p: p["memory_id"],
    "MemoryLinked": lambda p: p["memory_id"],
    "StateSummarized": lambda p: p["summary_id"],
}

# Dict-valued payload fields are stored as JSON strings (Neo4j properties cannot be maps).
_JSON_FIELDS = {"metadata", "attributes", "details"}


def register_projection(event_type: str, row_key: Callable[[dict[str, Any]], str]) -> None:
    """Let a later room add an event type: its Cypher file is cypher/projection/<event_type>.cypher."""
    _ROW_KEYS[event_type] = row_key


def projected_types() -> list[str]:
    return sorted(_ROW_KEYS)


def _base_row(event: StoredEvent) -> dict[str, Any]:
    row: dict[str, Any] = {"seq": event.seq}
    for name, value in event.payload.items():
        if name in _JSON_FIELDS:
            row[f"{name}_json"] = canonical_json(value)
        elif name == "tool_calls":
            row["tool_calls_json"] = canonical_json(value)
        else:
            row[name] = value
    if event.type == "DocumentIngested":
        row["n_lines"] = event.payload["text"].count("\n") + 1
    return row


def texts_to_embed(events: Sequence[StoredEvent]) -> list[str]:
    """Every text the projection of these events will embed (to warm the cache outside a transaction)."""
    texts: list[str] = []
    for event in events:
        if event.type == "DocumentChunked":
            texts.extend(chunk["text"] for chunk in event.payload["chunks"])
        elif event.type == "MemoryWritten" and event.payload["op"] != "DELETE":
            texts.append(event.payload["text"])
    return texts


def _add_embeddings(event_type: str, rows: list[dict[str, Any]], encoder: VectorEncoder | None) -> None:
    if event_type == "DocumentChunked":
        chunk_rows = [chunk for row in rows for chunk in row["chunks"]]
        if not chunk_rows:
            return
        if encoder is None:
            raise ProjectionError("projecting DocumentChunked needs an encoder (none configured)")
        vectors = encoder.encode([c["text"] for c in chunk_rows])
        for chunk, vector in zip(chunk_rows, vectors, strict=True):
            chunk["embedding"] = vector.astype(np.float32).tolist()
    elif event_type == "MemoryWritten":
        needing = [row for row in rows if row["op"] != "DELETE"]
        if not needing:
            for row in rows:
                row["embedding"] = None
            return
        if encoder is None:
            raise ProjectionError("projecting MemoryWritten needs an encoder (none configured)")
        vectors = encoder.encode([row["text"] for row in needing])
        for row in rows:
            row["embedding"] = None
        for row, vector in zip(needing, vectors, strict=True):
            row["embedding"] = vector.astype(np.float32).tolist()


# Events that replace or update what an earlier event of the same key made must not share an UNWIND
# statement with it (a statement does not see its own earlier rows the way a later statement does).
_CONFLICT_KEYS: dict[str, Callable[[dict[str, Any]], str]] = {
    "MemoryWritten": lambda p: p["memory_id"],
    "MemoryLinked": lambda p: p["memory_id"],
    "StateSummarized": lambda p: f"{p['profile_id']}|{p['system']}",
}


def group_consecutive(events: Sequence[StoredEvent]) -> list[tuple[str, list[StoredEvent]]]:
    """Runs of consecutive same-type events in seq order; a run is cut where a conflict key repeats."""
    groups: list[tuple[str, list[StoredEvent]]] = []
    keys: set[str] = set()
    for event in events:
        conflict = _CONFLICT_KEYS.get(event.type)
        key = conflict(event.payload) if conflict else None
        if groups and groups[-1][0] == event.type and (key is None or key not in keys):
            groups[-1][1].append(event)
        else:
            groups.append((event.type, [event]))
            keys = set()
        if key is not None:
            keys.add(key)
    return groups


def project_events(tx: ManagedTransaction, events: Sequence[StoredEvent], encoder: VectorEncoder | None) -> None:
    """Apply the projections of `events` (already in seq order) inside the caller's transaction."""
    for event_type, group in group_consecutive(events):
        if event_type not in _ROW_KEYS:
            raise UnknownEventTypeError(f"no projection for event type {event_type!r}")
        rows = [_base_row(event) for event in group]
        _add_embeddings(event_type, rows, encoder)
        try:
            record = tx.run(load_cypher(f"projection/{event_type}"), rows=rows).single()
        except ClientError as exc:
            raise ProjectionError(_explain_client_error(event_type, exc)) from exc
        applied = Counter(record["applied"] if record else [])
        expected = Counter(_ROW_KEYS[event_type](event.payload) for event in group)
        missing = expected - applied
        if missing:
            raise ProjectionError(_explain_missing(event_type, group, set(missing)))


def _explain_missing(event_type: str, group: Sequence[StoredEvent], missing: set[str]) -> str:
    key = _ROW_KEYS[event_type]
    lines = []
    for event in group:
        if key(event.payload) in missing:
            refs = {k: v for k, v in event.payload.items() if k.endswith("_id") or k.endswith("_ids") or k == "spans"}
            lines.append(f"  {event_type} {key(event.payload)} (seq {event.seq}): references {json.dumps(refs)[:400]}")
            if len(lines) >= 5:
                break
    return (
        f"{len(missing)} {event_type} event(s) reference ids that do not exist in the graph "
        f"(or a line range past the end of a document):\n" + "\n".join(lines)
    )


def _explain_client_error(event_type: str, exc: ClientError) -> str:
    if exc.code and "ConstraintValidationFailed" in exc.code:
        return f"{event_type}: an id is defined twice: {exc.message}"
    return f"{event_type}: Neo4j refused the projection: {exc.code}: {exc.message}"
