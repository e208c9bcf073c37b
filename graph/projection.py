"""Projection: stored events -> nodes and relationships, one named Cypher file per event type.

Events are projected in seq order; consecutive events of one type go through one UNWIND statement.
Every projection returns the keys of the rows it applied; a row whose references do not resolve is
missing from that list and fails the whole transaction with a message naming the event.

Planning a batch's statements (`plan_projection`: rows, embeddings, parameters) needs no transaction, so a
replay plans the next page while Neo4j applies the current one (`apply_projection`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from neo4j import ManagedTransaction
from neo4j.exceptions import ClientError

from graph.cypher_files import load_cypher
from graph.errors import GraphError, UnknownEventTypeError
from graph.events import EVENT_TYPES
from graph.hashing import canonical_json
from graph.quiet_params import QuietList
from graph.turn_links import plan_turn_links
from graph.upcasting import needs_upcast, upcast


class ProjectionError(GraphError):
    """An event could not be projected (unknown reference, duplicate id)."""


class ProjectableEvent(Protocol):
    """What a projection reads of a logged event (a StoredEvent, or a LoggedEvent read for replay)."""

    @property
    def seq(self) -> int: ...

    @property
    def type(self) -> str: ...

    @property
    def payload(self) -> dict[str, Any]: ...

    @property
    def schema_version(self) -> int: ...


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """Seq, type, payload and schema version of a logged event: all a projection reads (replay reads only this;
    building a StoredEvent per event cost more than decoding its payload)."""

    seq: int
    type: str
    payload: dict[str, Any]
    schema_version: int = 1


class VectorEncoder(Protocol):
    """What projections need from an encoder: identity, dimension, normalised vectors."""

    @property
    def encoder_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


# How each projection names the rows it applied (mirrors the RETURN of its Cypher file): declared on each event
# class as KEY / KEY_JOIN (graph/events.py).
def _key_function(fields: tuple[str, ...], join: str) -> Callable[[dict[str, Any]], str]:
    if len(fields) == 1:
        field = fields[0]
        return lambda p: str(p[field])
    return lambda p: join.join(str(p[f]) for f in fields)


_ROW_KEYS: dict[str, Callable[[dict[str, Any]], str]] = {
    name: _key_function(model.KEY, model.KEY_JOIN) for name, model in EVENT_TYPES.items() if model.KEY
}

# Dict-valued payload fields are stored as JSON strings (Neo4j properties cannot be maps).
_JSON_FIELDS = {
    "metadata", "attributes", "details", "config", "models", "prompt_hashes", "seeds", "versions", "arguments",
    "usage", "counts",
}


def projected_types() -> list[str]:
    return sorted(_ROW_KEYS)


def _base_row(event: ProjectableEvent) -> dict[str, Any]:
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


def texts_to_embed(events: Iterable[tuple[str, dict[str, Any]]]) -> list[str]:
    """Every text the projection of these (type, payload) events will embed (to warm the cache outside a
    transaction)."""
    texts: list[str] = []
    for event_type, payload in events:
        embeds = _embeds(event_type)
        if embeds == "chunks":
            texts.extend(chunk["text"] for chunk in payload["chunks"])
        elif embeds == "memory_text" and payload["op"] != "DELETE":
            texts.append(payload["text"])
    return texts


def _embeds(event_type: str) -> str | None:
    model = EVENT_TYPES.get(event_type)
    return model.EMBEDS if model is not None else None


def _add_embeddings(event_type: str, rows: list[dict[str, Any]], encoder: VectorEncoder | None) -> None:
    embeds = _embeds(event_type)
    if embeds == "chunks":
        chunk_rows = [chunk for row in rows for chunk in row["chunks"]]
        if not chunk_rows:
            return
        if encoder is None:
            raise ProjectionError(f"projecting {event_type} needs an encoder (none configured)")
        vectors = encoder.encode([c["text"] for c in chunk_rows])
        for chunk, vector in zip(chunk_rows, vectors, strict=True):
            chunk["embedding"] = vector.astype(np.float32).tolist()
    elif embeds == "memory_text":
        needing = [row for row in rows if row["op"] != "DELETE"]
        if not needing:
            for row in rows:
                row["embedding"] = None
            return
        if encoder is None:
            raise ProjectionError(f"projecting {event_type} needs an encoder (none configured)")
        vectors = encoder.encode([row["text"] for row in needing])
        for row in rows:
            row["embedding"] = None
        for row, vector in zip(needing, vectors, strict=True):
            row["embedding"] = vector.astype(np.float32).tolist()


# Events that replace or update what an earlier event of the same key made must not share an UNWIND
# statement with it (a statement does not see its own earlier rows the way a later statement does): CONFLICT.
_CONFLICT_KEYS: dict[str, Callable[[dict[str, Any]], str]] = {
    name: _key_function(model.CONFLICT, "|") for name, model in EVENT_TYPES.items() if model.CONFLICT
}


# Projection order inside one transaction: every type after the types it references. Within a type,
# seq order is kept. Types not listed (added later) come after all listed ones, in seq order.
_LAYERS: tuple[str, ...] = (
    "DocumentIngested", "DocumentChunked", "DocumentsLinked", "ProfileCreated", "FactRecorded", "TopicPlanned",
    "SessionStarted", "TurnAppended", "FactDisclosed", "DocumentExposed", "ItemCreated", "RequirementMapped",
    "ItemVerified", "ItemAugmented", "MemoryWritten", "MemoryLinked", "MemoryPairProcessed", "StateSummarized",
    "RunStarted", "AttemptStarted", "ToolCalled", "AnswerGiven", "AnswerJudged", "AttemptFailed", "AttemptFinished",
    "RunLeftIncomplete", "RunFinished",
    "EndpointFailed", "AnswerAdjudicated", "QaRunStarted", "QaAnswered", "QaAnswerJudged", "MemoryJudged",
)
_LAYER_INDEX = {name: index for index, name in enumerate(_LAYERS)}

# The payload field naming what an event creates (for the reference-order check): CREATES.
_CREATED_ID_FIELDS = {name: model.CREATES for name, model in EVENT_TYPES.items() if model.CREATES}


def _referenced_ids(payload: Any, own_key: str | None = None) -> list[str]:
    """Every id a payload mentions (fields named *_id / *_ids, at any depth), except the one it creates."""
    found: list[str] = []
    if isinstance(payload, dict):
        for key, value in payload.items():
            if key == own_key:
                continue
            if key.endswith("_id") and isinstance(value, str):
                found.append(value)
            elif key.endswith("_ids") and isinstance(value, list):
                found.extend(v for v in value if isinstance(v, str))
            elif isinstance(value, (dict, list)) and key not in _JSON_FIELDS:  # free-form maps name no graph ids
                found.extend(_referenced_ids(value))
    elif isinstance(payload, list):
        for value in payload:
            found.extend(_referenced_ids(value))
    return found


def check_reference_order(events: Sequence[ProjectableEvent]) -> None:
    """Refuse a batch in which an event references something a LATER event of the batch creates: such a
    log would project differently when replayed in other batch sizes."""
    created: dict[str, int] = {}
    for event in events:
        field = _CREATED_ID_FIELDS.get(event.type)
        if field and isinstance(event.payload.get(field), str):
            created.setdefault(event.payload[field], event.seq)
    if not created:
        return
    for event in events:
        for ref in _referenced_ids(event.payload, _CREATED_ID_FIELDS.get(event.type)):
            made = created.get(ref)
            if made is not None and made > event.seq:
                raise ProjectionError(
                    f"{event.type} (seq {event.seq}) references {ref!r}, which a later event (seq {made}) creates; "
                    "events must come after what they reference"
                )


def group_consecutive(events: Sequence[ProjectableEvent]) -> list[tuple[str, list[ProjectableEvent]]]:
    """Statements to run for a batch: events ordered by type layer (then seq) and grouped by type; a
    group is cut where a conflict key repeats, so updates never share a statement with what they update."""
    ordered = sorted(events, key=lambda e: (_LAYER_INDEX.get(e.type, len(_LAYERS)), e.seq))
    groups: list[tuple[str, list[ProjectableEvent]]] = []
    keys: set[str] = set()
    for event in ordered:
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


@dataclass(frozen=True)
class PlannedStatement:
    """One projection statement of a batch, planned outside any transaction: its event type, the events it
    applies (for error messages), its parameters and the keys its RETURN must list."""

    event_type: str
    events: Sequence[ProjectableEvent]
    params: dict[str, Any]
    expected: list[str]


def plan_projection(events: Sequence[ProjectableEvent], encoder: VectorEncoder | None) -> list[PlannedStatement]:
    """The statements projecting `events` (in seq order), with their rows, embeddings and planned parameters;
    events written under an older schema version are planned as their current form (graph/upcasting.py)."""
    events = [_current_form(event) for event in events]
    check_reference_order(events)
    planned: list[PlannedStatement] = []
    for event_type, group in group_consecutive(events):
        if event_type not in _ROW_KEYS:
            raise UnknownEventTypeError(f"no projection for event type {event_type!r}")
        rows = [_base_row(event) for event in group]
        _add_embeddings(event_type, rows, encoder)
        params: dict[str, Any] = {"rows": rows}
        if event_type in _EXTRA_PARAMS:
            params.update(_EXTRA_PARAMS[event_type](rows))
        key = _ROW_KEYS[event_type]
        planned.append(
            PlannedStatement(
                event_type,
                group,
                {name: QuietList(value) if isinstance(value, list) else value for name, value in params.items()},
                [key(event.payload) for event in group],
            )
        )
    return planned


def apply_projection(tx: ManagedTransaction, statements: Sequence[PlannedStatement]) -> None:
    """Run planned statements inside the caller's transaction; a row whose references do not resolve fails it."""
    for statement in statements:
        event_type = statement.event_type
        try:
            record = tx.run(load_cypher(f"projection/{event_type}"), statement.params).single()
        except ClientError as exc:
            raise ProjectionError(_explain_client_error(event_type, exc)) from exc
        applied = record["applied"] if record else []
        if applied == statement.expected:  # the usual case: every row applied, in row order
            continue
        missing = Counter(statement.expected) - Counter(applied)
        if missing:
            raise ProjectionError(_explain_missing(event_type, statement.events, set(missing)))


def project_events(tx: ManagedTransaction, events: Sequence[ProjectableEvent], encoder: VectorEncoder | None) -> None:
    """Apply the projections of `events` (in seq order) inside the caller's transaction."""
    apply_projection(tx, plan_projection(events, encoder))


def _rows_by_profile(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """`profiles` [{profile_id, members}]: the rows' positions per profile, so a statement seeks each profile
    once instead of once per row."""
    members: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        members.setdefault(row["profile_id"], []).append(i)
    return {"profiles": [{"profile_id": profile_id, "members": idx} for profile_id, idx in members.items()]}


# Projections that take parameters planned from their rows besides `rows` itself.
_EXTRA_PARAMS: dict[str, Callable[[list[dict[str, Any]]], dict[str, Any]]] = {
    "TurnAppended": plan_turn_links,
    "FactRecorded": _rows_by_profile,
}


def _current_form(event: ProjectableEvent) -> ProjectableEvent:
    version = event.schema_version
    if not needs_upcast(event.type, version):
        return event
    event_type, version, payload = upcast(event.type, version, event.payload)
    return LoggedEvent(event.seq, event_type, payload, version)


def _explain_missing(event_type: str, group: Sequence[ProjectableEvent], missing: set[str]) -> str:
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
