"""Mem0's vector store over the evidence graph: a `VectorStoreBase` whose memories are the graph's
`Memory {system: 'mem0'}` nodes, scoped by profile (Mem0's `user_id`).

Reads (search, get, list) run Cypher against the graph and see the writes of the pair being built. Writes
(insert, update, delete) are only buffered: `PairScope.writes()` turns them into MemoryWritten events, which
the build appends with the pair's MemoryPairProcessed in one transaction. A write outside a pair scope is
refused, since every memory must derive from the turns of the pair that caused it.

Scoring is Mem0's local-Qdrant path of its default install (see `search_signals`): `search` returns the raw
cosine Qdrant reports, over-fetched as Mem0 asks; `keyword_search` returns None, as Qdrant's does without
fastembed, so Mem0 scores no BM25. Mem0 also opens a second store of this provider for its entity index
(collection `<name>_entities`, used only when spaCy's model loads, which `search_signals` prevents); that one
is inert (it stores nothing, finds nothing), so entity boosts are off.
"""

from __future__ import annotations

import builtins
import json
import math
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from mem0.vector_stores.base import VectorStoreBase
from pydantic import BaseModel, ConfigDict

from agents.memory.errors import MemoryBackendError
from agents.memory.pairs import HistoryPair
from graph.cypher_files import load_cypher
from graph.events import MemoryWritten
from graph.store import EventStore

ID_PREFIX = "mem0:"
# Namespace of the memory ids: uuid5(profile | pair | Mem0's content hash), so a rebuild writes the same ids.
ID_NAMESPACE = uuid.UUID("5a0c4f5e-8d7e-4b53-9b1e-6d0f2c1a7e01")
# Payload fields kept elsewhere: the text is the node's text, the sources are its DERIVED_FROM edges.
PAYLOAD_OUTSIDE_METADATA = frozenset({"data", "source_turn_ids"})

Op = Literal["ADD", "UPDATE", "DELETE"]


class OutputData(BaseModel):
    """One memory as Mem0's stores return it (id, similarity score, payload)."""

    id: str | None
    score: float | None
    payload: dict[str, Any] | None


class GraphStoreConfig(BaseModel):
    """What Mem0 passes to the store's constructor (the vector store config of its MemoryConfig)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    collection_name: str = "mem0"
    system: str = "mem0"
    store: Any = None

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> GraphStoreConfig:
        # Mem0 deep-copies the config to open its entity store: share the live EventStore.
        return GraphStoreConfig(collection_name=self.collection_name, system=self.system, store=self.store)


@dataclass
class PendingWrite:
    op: Op
    memory_id: str
    profile_id: str
    text: str
    vector: list[float] | None
    payload: dict[str, Any]
    source_turn_ids: list[str]


@dataclass
class PairScope:
    """The writes of one pair, in the order Mem0 made them (one entry per memory, ops merged)."""

    profile_id: str
    pair: HistoryPair
    system: str
    pending: dict[str, PendingWrite] = field(default_factory=dict)

    def writes(self) -> list[MemoryWritten]:
        return [
            MemoryWritten(
                system=self.system,
                memory_id=w.memory_id,
                profile_id=w.profile_id,
                op=w.op,
                text=w.text,
                source_turn_ids=w.source_turn_ids,
                metadata=json_safe_metadata(w.payload),
            )
            for w in self.pending.values()
        ]


def memory_node_id(vector_id: str) -> str:
    """The graph id of a Mem0 memory (Mem0 may hand back the id with or without the system prefix)."""
    text = str(vector_id)
    return text if text.startswith(ID_PREFIX) else ID_PREFIX + text


def json_safe_metadata(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload fields that survive JSON (text and sources excluded: they are the node's text and edges)."""
    out: dict[str, Any] = {}
    for key, value in payload.items():
        if key in PAYLOAD_OUTSIDE_METADATA:
            continue
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            continue
        out[key] = value
    return out


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class GraphVectorStore(VectorStoreBase):
    """Mem0's `VectorStoreBase` over the graph's Memory nodes (see the module docstring)."""

    def __init__(self, collection_name: str = "mem0", system: str = "mem0", store: EventStore | None = None) -> None:
        if store is None:
            raise MemoryBackendError("Mem0's graph vector store needs the project's EventStore")
        self.collection_name = collection_name
        self.system = system
        self.store = store
        # Mem0's entity index is a second store of this provider under another collection name: keep it inert.
        self.inert = collection_name != system
        self.scope: PairScope | None = None

    # --- the pair scope -----------------------------------------------------------------------

    @contextmanager
    def pair_scope(self, profile_id: str, pair: HistoryPair) -> Iterator[PairScope]:
        """Buffer the writes Mem0 makes while it takes in `pair`; the buffer is dropped on exit."""
        if self.scope is not None:
            raise MemoryBackendError(f"memory system {self.system!r}: pair {self.scope.pair.pair_id!r} is still open")
        self.scope = PairScope(profile_id=profile_id, pair=pair, system=self.system)
        try:
            yield self.scope
        finally:
            self.scope = None

    def _open_scope(self, what: str) -> PairScope:
        if self.scope is None:
            raise MemoryBackendError(
                f"memory system {self.system!r}: Mem0 tried to {what} outside a pair build; every memory must "
                "derive from the turns of the pair that caused it (build with `./colabench memory build`)"
            )
        return self.scope

    # --- reading ------------------------------------------------------------------------------

    def _run(self, name: str, **params: Any) -> list[Any]:
        with self.store.driver.session(database=self.store.database) as session:
            return list(session.run(load_cypher(f"memory/{name}"), system=self.system, **params))

    @staticmethod
    def _payload(row: Any) -> dict[str, Any]:
        payload: dict[str, Any] = json.loads(row["metadata"]) if row["metadata"] else {}
        payload["data"] = row["text"] or ""
        payload["source_turn_ids"] = list(row["source_turn_ids"])
        return payload

    @staticmethod
    def _pending_payload(write: PendingWrite) -> dict[str, Any]:
        return dict(write.payload, data=write.text, source_turn_ids=write.source_turn_ids)

    @staticmethod
    def _profile(filters: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
        filters = dict(filters or {})
        profile_id = filters.pop("user_id", None)
        if not profile_id:
            raise MemoryBackendError("Mem0's graph vector store searches one profile: filters need a user_id")
        for key, value in filters.items():
            if isinstance(value, (dict, list)):
                raise MemoryBackendError(f"Mem0's graph vector store supports equality filters only (got {key!r})")
        return str(profile_id), filters

    @staticmethod
    def _matches(payload: dict[str, Any], extra: dict[str, Any]) -> bool:
        return all(value == "*" or payload.get(key) == value for key, value in extra.items())

    def _pending_for(self, profile_id: str) -> dict[str, PendingWrite]:
        if self.scope is None or self.scope.profile_id != profile_id:
            return {}
        return self.scope.pending

    def search(
        self, query: Any, vectors: Any, top_k: int = 5, filters: dict[str, Any] | None = None
    ) -> list[OutputData]:
        if self.inert:
            return []
        profile_id, extra = self._profile(filters)
        vector = [float(x) for x in vectors]
        pending = self._pending_for(profile_id)
        limit = None if extra else int(top_k) + len(pending)
        hits: list[OutputData] = []
        for row in self._run("mem0_search", profile_id=profile_id, vector=vector, limit=limit):
            if row["id"] in pending:
                continue
            payload = self._payload(row)
            if self._matches(payload, extra):
                hits.append(OutputData(id=row["id"], score=float(row["score"]), payload=payload))
        for write in pending.values():
            if write.op != "DELETE" and write.vector is not None and self._matches(write.payload, extra):
                score = _cosine(vector, write.vector)
                hits.append(OutputData(id=write.memory_id, score=score, payload=self._pending_payload(write)))
        hits.sort(key=lambda h: (-(h.score or 0.0), h.id or ""))
        return hits[: int(top_k)]

    def keyword_search(self, query: Any, top_k: int = 5, filters: dict[str, Any] | None = None) -> None:
        """None: no BM25 signal, as Mem0's Qdrant store answers on the default install (no fastembed model).

        Defined (not inherited) so Mem0 treats the store as one that supports keyword search, as it treats Qdrant,
        and takes the same path; the recorded deviation says why it scores nothing."""
        return None

    def get(self, vector_id: str) -> OutputData | None:
        if self.inert:
            return None
        memory_id = memory_node_id(vector_id)
        if self.scope is not None and memory_id in self.scope.pending:
            write = self.scope.pending[memory_id]
            if write.op == "DELETE":
                return None
            return OutputData(id=memory_id, score=None, payload=self._pending_payload(write))
        rows = self._run("mem0_get", ids=[memory_id])
        if not rows or rows[0]["deleted"]:
            return None
        return OutputData(id=memory_id, score=None, payload=self._payload(rows[0]))

    def list(self, filters: dict[str, Any] | None = None, top_k: int | None = None) -> list[list[OutputData]]:
        if self.inert:
            return [[]]
        profile_id, extra = self._profile(filters)
        pending = self._pending_for(profile_id)
        rows = self._run("mem0_list", profile_id=profile_id, limit=None)
        out = [
            OutputData(id=r["id"], score=None, payload=self._payload(r))
            for r in rows
            if r["id"] not in pending
        ]
        out += [
            OutputData(id=w.memory_id, score=None, payload=self._pending_payload(w))
            for w in pending.values()
            if w.op != "DELETE"
        ]
        out = [o for o in out if self._matches(o.payload or {}, extra)]
        return [out[: int(top_k)] if top_k else out]

    # --- writing (buffered) -------------------------------------------------------------------

    def insert(self, vectors: Any, payloads: Any = None, ids: Any = None) -> None:
        if self.inert:
            return
        scope = self._open_scope("insert a memory")
        payloads = payloads or [{} for _ in vectors]
        for index, (vector, payload) in enumerate(zip(vectors, payloads, strict=True)):
            payload = dict(payload or {})
            text = str(payload.get("data") or "")
            key = f"{scope.profile_id}|{scope.pair.pair_id}|{payload.get('hash') or text}|{index}"
            memory_id = ID_PREFIX + str(uuid.uuid5(ID_NAMESPACE, key))
            scope.pending[memory_id] = PendingWrite(
                op="ADD",
                memory_id=memory_id,
                profile_id=scope.profile_id,
                text=text,
                vector=[float(x) for x in vector],
                payload=payload,
                source_turn_ids=list(scope.pair.turn_ids),
            )

    def update(self, vector_id: str, vector: Any = None, payload: dict[str, Any] | None = None) -> None:
        if self.inert:
            return
        scope = self._open_scope("update a memory")
        memory_id = memory_node_id(vector_id)
        current = self.get(memory_id)
        if current is None:
            raise MemoryBackendError(
                f"memory system {self.system!r}: Mem0 updates memory {memory_id!r}, which is not live"
            )
        earlier = list((current.payload or {}).get("source_turn_ids") or [])
        new_payload = dict(payload if payload is not None else current.payload or {})
        text = str(new_payload.get("data") or (current.payload or {}).get("data") or "")
        previous = scope.pending.get(memory_id)
        scope.pending[memory_id] = PendingWrite(
            op="ADD" if previous is not None and previous.op == "ADD" else "UPDATE",
            memory_id=memory_id,
            profile_id=scope.profile_id,
            text=text,
            vector=[float(x) for x in vector] if vector is not None else (previous.vector if previous else None),
            payload=new_payload,
            source_turn_ids=list(dict.fromkeys(earlier + scope.pair.turn_ids)),
        )
        if scope.pending[memory_id].vector is None:
            # Scoring a buffered update needs a vector: the graph's embedding is the project's encoder's.
            encoder = self.store.encoder
            if encoder is None:
                raise MemoryBackendError(f"memory system {self.system!r} needs the project's encoder")
            scope.pending[memory_id].vector = [float(x) for x in encoder.encode([text])[0]]

    def delete(self, vector_id: str) -> None:
        if self.inert:
            return
        scope = self._open_scope("delete a memory")
        memory_id = memory_node_id(vector_id)
        previous = scope.pending.get(memory_id)
        if previous is not None and previous.op == "ADD":
            del scope.pending[memory_id]  # added and deleted within the pair: never written
            return
        current = self.get(memory_id)
        if current is None:
            return
        scope.pending[memory_id] = PendingWrite(
            op="DELETE",
            memory_id=memory_id,
            profile_id=scope.profile_id,
            text=str((current.payload or {}).get("data") or ""),
            vector=None,
            payload=dict(current.payload or {}),
            source_turn_ids=[],
        )

    # --- collections: the graph has one, owned by the projection ------------------------------

    def create_col(self, name: str, vector_size: int, distance: str) -> None:
        return None

    def list_cols(self) -> builtins.list[str]:
        return [self.collection_name]

    def delete_col(self) -> None:
        raise MemoryBackendError("Mem0's memories are events of the evidence graph: they cannot be dropped by Mem0")

    def col_info(self) -> dict[str, Any]:
        return {"name": self.collection_name, "system": self.system, "inert": self.inert}

    def reset(self) -> None:
        self.delete_col()
