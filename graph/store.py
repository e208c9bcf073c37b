"""The event store: an append-only, hash-chained log of :Event nodes in Neo4j.

`append` writes new events and their projection in one transaction: it takes the log's write lock (reading
in the same statement which of its events are logged already), skips events whose content id is already in
the log (re-appending is a no-op), assigns gap-free seq numbers, chains hashes, creates the :Event nodes with
UNWIND and moves the head in one statement, and applies the projections.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import orjson
from neo4j import Driver, ManagedTransaction, Record

from graph.cypher_files import list_cypher, load_cypher, load_statements
from graph.errors import SchemaMismatchError
from graph.events import NewEvent, now_iso
from graph.hashing import GENESIS_HASH, canonical_json, chain_hash, content_event_id
from graph.projection import LoggedEvent, VectorEncoder, project_events, texts_to_embed
from graph.stored_event import StoredEvent

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class AppendResult:
    appended: int
    skipped: int
    head_seq: int
    head_hash: str
    # True when the append's guard refused it inside the transaction (nothing was written)
    refused: bool = False


# A condition checked inside an append's transaction, after the log's write lock is taken (so no other append
# can change what it reads before the events are written): False refuses the append (agents/runs/claims.py).
AppendGuard = Callable[[ManagedTransaction], bool]


class EventSink(Protocol):
    """What appends a batch of events: an EventStore, or a writer in front of one that appends later, in order
    (agents/runs/event_writer.py)."""

    def append(self, events: Sequence[NewEvent]) -> object: ...


@dataclass(frozen=True)
class LogHead:
    seq: int
    hash: str


# The schema file holding the vector and full-text indexes.
SEARCH_SCHEMA = "schema/04_search"

# Events per record when reading for replay (cypher/log/read_page_lean): few records, each a small batch.
_REPLAY_CHUNK = 500


class EventStore:
    """Append, read and inspect the event log of one Neo4j database."""

    def __init__(self, driver: Driver, database: str = "neo4j", encoder: VectorEncoder | None = None) -> None:
        self.driver = driver
        self.database = database
        self.encoder = encoder

    # --- schema -----------------------------------------------------------------------------------

    def create_schema(self, search_indexes: bool = True) -> None:
        """Create constraints, indexes and the log head (idempotent). `search_indexes=False` leaves out the
        vector and full-text indexes (schema/04_search), which a rebuild creates after its replay."""
        dim = self.encoder.dim if self.encoder else 384
        with self.driver.session(database=self.database) as session:
            for name in list_cypher("schema"):
                if not search_indexes and name == SEARCH_SCHEMA:
                    continue
                for statement in load_statements(name):
                    session.run(statement, dim=dim).consume()
            session.run(load_cypher("log/lock_head"), genesis=GENESIS_HASH).consume()

    def create_search_indexes(self) -> None:
        """Create the vector and full-text indexes (schema/04_search; idempotent)."""
        dim = self.encoder.dim if self.encoder else 384
        with self.driver.session(database=self.database) as session:
            for statement in load_statements(SEARCH_SCHEMA):
                session.run(statement, dim=dim).consume()

    def ensure_schema(self) -> None:
        """Create the schema (idempotent) and check the projection's vectors come from our encoder."""
        self.create_schema()
        with self.driver.session(database=self.database) as session:
            meta = session.run(load_cypher("admin/read_meta")).single()
            if self.encoder is None:
                return
            if meta and meta["encoder_id"] and meta["encoder_id"] != self.encoder.encoder_id:
                raise SchemaMismatchError(
                    f"the graph's vectors were made by encoder {meta['encoder_id']}, but the configured "
                    f"encoder is {self.encoder.encoder_id}; run `./colabench graph rebuild` to re-embed with "
                    f"it, or set COLABENCH_ENCODER to the original encoder"
                )
            if not meta or not meta["encoder_id"]:
                session.run(
                    load_cypher("admin/write_meta"),
                    encoder_id=self.encoder.encoder_id,
                    dim=self.encoder.dim,
                    schema_version=SCHEMA_VERSION,
                ).consume()

    def set_encoder_meta(self) -> None:
        if self.encoder is None:
            return
        with self.driver.session(database=self.database) as session:
            session.run(
                load_cypher("admin/write_meta"),
                encoder_id=self.encoder.encoder_id,
                dim=self.encoder.dim,
                schema_version=SCHEMA_VERSION,
            ).consume()

    # --- writing ----------------------------------------------------------------------------------

    def existing_event_ids(self, ids: Sequence[str]) -> set[str]:
        with self.driver.session(database=self.database) as session:
            record = session.run(load_cypher("log/existing_ids"), ids=list(ids)).single()
        return set(record["existing"]) if record else set()

    def warm_embeddings(self, events: Sequence[NewEvent]) -> None:
        """Embed (through the cache) every text these events' projection needs, outside any transaction."""
        self.warm((new.event.TYPE, new.event.payload()) for new in events)

    def warm(self, events: Iterable[tuple[str, dict[str, Any]]]) -> None:
        """`warm_embeddings` for (type, payload) pairs."""
        if self.encoder is None:
            return
        texts = texts_to_embed(events)
        if texts:
            self.encoder.encode(texts)

    def append(self, events: Sequence[NewEvent], guard: AppendGuard | None = None) -> AppendResult:
        """Append events and project them atomically; events already in the log are skipped. A `guard` is
        checked under the log's write lock: when it returns False nothing is written (`refused`)."""
        prepared: dict[str, tuple[NewEvent, dict[str, Any]]] = {}
        for new in events:
            payload = new.event.payload()
            prepared.setdefault(content_event_id(new.event.TYPE, payload), (new, payload))
        # Embedding happens before the transaction so the log lock is held only for writes.
        self.warm((new.event.TYPE, payload) for new, payload in prepared.values())

        def work(tx: ManagedTransaction) -> AppendResult:
            head = tx.run(load_cypher("log/lock_head_and_existing"), genesis=GENESIS_HASH, ids=list(prepared)).single()
            assert head is not None
            seq, prev = int(head["seq"]), str(head["hash"])
            if guard is not None and not guard(tx):
                return AppendResult(0, len(events), seq, prev, refused=True)
            existing = set(head["existing"])
            recorded_at = now_iso()
            stored: list[StoredEvent] = []
            for event_id, (new, payload) in prepared.items():
                if event_id in existing:
                    continue
                seq += 1
                fields: dict[str, Any] = {
                    "event_id": event_id,
                    "seq": seq,
                    "type": new.event.TYPE,
                    "occurred_at": new.occurred_at or recorded_at,
                    "recorded_at": recorded_at,
                    "actor": new.actor,
                    "payload": payload,
                }
                if new.event.VERSION != 1:  # chained only when not 1 (StoredEvent.chained_fields)
                    fields["schema_version"] = new.event.VERSION
                digest = chain_hash(prev, fields)
                stored.append(StoredEvent.model_construct(**fields, prev_hash=prev, hash=digest))
                prev = digest
            if stored:
                self._write(tx, stored)
            return AppendResult(len(stored), len(events) - len(stored), seq, prev)

        with self.driver.session(database=self.database) as session:
            return session.execute_write(work)

    def _write(self, tx: ManagedTransaction, stored: Sequence[StoredEvent]) -> None:
        rows = [
            {
                "event_id": e.event_id,
                "seq": e.seq,
                "type": e.type,
                "occurred_at": e.occurred_at,
                "recorded_at": e.recorded_at,
                "actor": e.actor,
                "payload": canonical_json(e.payload),
                "prev_hash": e.prev_hash,
                "hash": e.hash,
                "schema_version": e.schema_version,
            }
            for e in stored
        ]
        tx.run(load_cypher("log/create_events"), rows=rows, seq=stored[-1].seq, hash=stored[-1].hash).consume()
        project_events(tx, stored, self.encoder)

    def import_stored(self, stored: Sequence[StoredEvent]) -> None:
        """Append records that already carry seq and hashes (import); they must continue the chain."""
        if not stored:
            return
        self.warm((e.type, e.payload) for e in stored)

        def work(tx: ManagedTransaction) -> None:
            head = tx.run(load_cypher("log/lock_head"), genesis=GENESIS_HASH).single()
            assert head is not None
            if stored[0].seq != int(head["seq"]) + 1 or stored[0].prev_hash != head["hash"]:
                from graph.errors import ChainBrokenError

                raise ChainBrokenError(
                    f"imported event seq {stored[0].seq} does not continue the log (head seq {head['seq']})"
                )
            self._write(tx, stored)

        with self.driver.session(database=self.database) as session:
            session.execute_write(work)

    # --- reading ----------------------------------------------------------------------------------

    def head(self) -> LogHead:
        with self.driver.session(database=self.database) as session:
            record = session.run(load_cypher("log/read_head"), genesis=GENESIS_HASH).single()
        assert record is not None
        return LogHead(int(record["seq"]), str(record["hash"]))

    def read(
        self, after: int = 0, until: int | None = None, types: Sequence[str] | None = None, page_size: int = 5000
    ) -> Iterator[StoredEvent]:
        """Events in seq order with after < seq <= until (until defaults to the current head)."""
        query = load_cypher("log/read_page_typed" if types else "log/read_page")
        for records in self._pages(query, after, until, page_size, types=list(types or [])):
            for record in records:
                data = dict(record)
                data["payload"] = orjson.loads(data["payload"])
                yield StoredEvent.model_validate(data)

    def read_for_replay(
        self, after: int = 0, until: int | None = None, page_size: int = 5000
    ) -> Iterator[list[LoggedEvent]]:
        """Pages of events carrying only seq, type, payload and schema version (all a projection reads), in seq
        order."""
        query = load_cypher("log/read_page_lean")
        until = self.head().seq if until is None else until
        cursor = after
        while cursor < until:
            page: list[LoggedEvent] = []
            with self.driver.session(database=self.database) as session:
                for seqs, kinds, payloads, versions in session.run(
                    query, after=cursor, until=until, limit=page_size, chunk=_REPLAY_CHUNK
                ):
                    page.extend(
                        LoggedEvent(seq, kind, orjson.loads(payload), int(version))
                        for seq, kind, payload, version in zip(seqs, kinds, payloads, versions, strict=True)
                    )
            if not page:
                return
            yield page
            cursor = page[-1].seq

    def _pages(
        self, query: str, after: int, until: int | None, page_size: int, **params: Any
    ) -> Iterator[list[Record]]:
        """Pages of `query`'s records (each with a `seq` column, ascending) for after < seq <= until."""
        until = self.head().seq if until is None else until
        cursor = after
        while cursor < until:
            with self.driver.session(database=self.database) as session:
                records = list(session.run(query, after=cursor, until=until, limit=page_size, **params))
            if not records:
                return
            yield records
            cursor = int(records[-1]["seq"])

    def count_by_type(self) -> dict[str, int]:
        with self.driver.session(database=self.database) as session:
            return {r["type"]: int(r["n"]) for r in session.run(load_cypher("log/count_by_type"))}
