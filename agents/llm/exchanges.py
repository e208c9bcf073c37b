"""Every LLM exchange kept: each request (messages, tools, parameters) and its reply, content-addressed and
compressed in one SQLite file under the data directory (`<data dir>/llm_exchanges.sqlite`, or
`COLABENCH_LLM_EXCHANGES`).

An exchange is stored in two layers so that prompt parts shared by many requests are kept once:

- **parts**: each message, the tool list and the response format, as canonical JSON compressed with zlib,
  keyed by the SHA-256 of that JSON (an agent's growing conversation re-sends the same system prompt,
  question and tool results on every turn; the judge's schema is the same for every verdict);
- **exchanges**: the role, the model, the cache namespace, the list of part hashes in request order, the
  other request parameters and the normalised reply, keyed by the SHA-256 of that record.

The exchange hash is a pure function of the request and the reply (no time, no cache flag), so replaying a
cached reply names the same exchange, and the events that used it (answers, tool calls, verdicts, memory
writes, summaries, synthesis drafts) carry it in their `exchange` field.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from agents.llm.errors import LLMError
from graph.errors import BadInputError
from graph.format_version import header_line, header_version
from graph.hashing import canonical_bytes
from graph.sqlite_file import SharedSqliteFile

_SCHEMA = """
CREATE TABLE IF NOT EXISTS parts (
    sha256 TEXT PRIMARY KEY,
    data BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS exchanges (
    sha256 TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    model TEXT NOT NULL,
    created_at TEXT NOT NULL,
    data BLOB NOT NULL
) WITHOUT ROWID;
"""

# Request fields stored as separately hashed parts (the rest are small parameters kept in the record).
_PART_FIELDS = ("tools", "response_format")
# Roles whose requests hold gold (the reference answer, private facts, a profile's hidden plan): shown only
# with the API token, like every other gold field.
GOLD_ROLES = frozenset({"judge", "synthesis"})
_LEVEL = 6
# The format of the store (SQLite `user_version`) and of its export (header line), one number for both since
# the export holds the rows as stored. A store or export of a newer version is refused by name.
EXCHANGES_FORMAT = "colabench-llm-exchanges"
EXCHANGES_FORMAT_VERSION = 1


class ExchangeNotFoundError(BadInputError, LLMError):
    """No exchange (or one of its parts) with this hash in the store, or a text that is not an exchange hash:
    the command line named something that is not there (bad input, exit 2)."""

    retryable = False


class ExchangeRecord(BaseModel):
    """One exchange as stored: its request by part hashes, the other parameters, and the reply."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    role: str
    model: str
    namespace: str = ""
    messages: list[str]
    parts: dict[str, str] = Field(default_factory=dict)
    params: dict[str, Any] = Field(default_factory=dict)
    reply: dict[str, Any]

    def sha256(self) -> str:
        return hashlib.sha256(canonical_bytes(self.model_dump(mode="json"))).hexdigest()

    @property
    def holds_gold(self) -> bool:
        return self.role in GOLD_ROLES


def check_exchange_hash(text: str) -> str:
    """`text` when it spells an exchange hash (64 lowercase hex digits); a clear error otherwise."""
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise ExchangeNotFoundError(f"{text!r} is not an exchange hash (64 lowercase hex digits)")
    return text


def split_request(request: dict[str, Any]) -> tuple[list[bytes], dict[str, bytes], dict[str, Any]]:
    """A request body as (message JSON per message, JSON per part field, remaining parameters)."""
    messages = [canonical_bytes(m) for m in request.get("messages", [])]
    parts = {name: canonical_bytes(request[name]) for name in _PART_FIELDS if request.get(name) is not None}
    params = {k: v for k, v in request.items() if k != "messages" and k not in _PART_FIELDS}
    return messages, parts, params


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ExchangeStore:
    """Parts and exchanges in one `SharedSqliteFile` (safe across threads and processes, e.g. Ray actors)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._db = SharedSqliteFile(self.path, _SCHEMA, format_version=EXCHANGES_FORMAT_VERSION)

    def put(self, *, role: str, request: dict[str, Any], reply: dict[str, Any], namespace: str = "") -> str:
        """Store one request and its reply (parts already present are not written again); return the exchange
        hash. Storing the same exchange twice is a no-op."""
        messages, parts, params = split_request(request)
        blobs = {_digest(b): b for b in messages}
        named = {name: _digest(b) for name, b in parts.items()}
        blobs.update({_digest(b): b for b in parts.values()})
        record = ExchangeRecord(
            role=role,
            model=str(request.get("model") or ""),
            namespace=namespace,
            messages=[_digest(b) for b in messages],
            parts=named,
            params=params,
            reply=reply,
        )
        key = record.sha256()
        body = zlib.compress(canonical_bytes(record.model_dump(mode="json")), _LEVEL)
        with self._db.lock:
            conn = self._db.connection()
            if conn.execute("SELECT 1 FROM exchanges WHERE sha256 = ?", (key,)).fetchone() is not None:
                return key
            known = _existing(conn, list(blobs))
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    "INSERT OR IGNORE INTO parts (sha256, data) VALUES (?, ?)",
                    [(h, zlib.compress(b, _LEVEL)) for h, b in blobs.items() if h not in known],
                )
                conn.execute(
                    "INSERT OR IGNORE INTO exchanges (sha256, role, model, created_at, data) VALUES (?, ?, ?, ?, ?)",
                    (key, role, record.model, datetime.now(UTC).isoformat(timespec="seconds"), body),
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return key

    def record(self, key: str) -> ExchangeRecord:
        """The stored record of an exchange; ExchangeNotFoundError when the store has none with this hash."""
        with self._db.lock:
            row = self._db.connection().execute("SELECT data FROM exchanges WHERE sha256 = ?", (key,)).fetchone()
        if row is None:
            raise ExchangeNotFoundError(f"no LLM exchange {key!r} in {self.path}")
        return ExchangeRecord.model_validate(orjson.loads(zlib.decompress(row[0])))

    def part(self, key: str) -> Any:
        with self._db.lock:
            row = self._db.connection().execute("SELECT data FROM parts WHERE sha256 = ?", (key,)).fetchone()
        if row is None:
            raise ExchangeNotFoundError(f"exchange part {key!r} is missing from {self.path}")
        return orjson.loads(zlib.decompress(row[0]))

    def request(self, record: ExchangeRecord) -> dict[str, Any]:
        """The request body of a record, put back together from its parts (as it was sent)."""
        body: dict[str, Any] = dict(record.params)
        body["messages"] = [self.part(h) for h in record.messages]
        for name, key in record.parts.items():
            body[name] = self.part(key)
        return body

    def show(self, key: str) -> dict[str, Any]:
        """One exchange as a reader wants it: hash, role, model, the whole request and the reply."""
        record = self.record(key)
        return {
            "exchange": key,
            "role": record.role,
            "model": record.model,
            "namespace": record.namespace,
            "request": self.request(record),
            "reply": record.reply,
        }

    def role_of(self, key: str) -> str:
        """The role of an exchange (to decide whether showing it needs the token)."""
        with self._db.lock:
            row = self._db.connection().execute("SELECT role FROM exchanges WHERE sha256 = ?", (key,)).fetchone()
        if row is None:
            raise ExchangeNotFoundError(f"no LLM exchange {key!r} in {self.path}")
        return str(row[0])

    def stored_bytes(self) -> dict[str, int]:
        """Counts and compressed bytes of parts and exchanges (what the store costs on disk, before SQLite
        page overhead)."""
        with self._db.lock:
            conn = self._db.connection()
            parts = conn.execute("SELECT count(*), coalesce(sum(length(data)), 0) FROM parts").fetchone()
            exchanges = conn.execute("SELECT count(*), coalesce(sum(length(data)), 0) FROM exchanges").fetchone()
        return {
            "parts": int(parts[0]),
            "part_bytes": int(parts[1]),
            "exchanges": int(exchanges[0]),
            "exchange_bytes": int(exchanges[1]),
        }

    # --- export / import (rows as they are stored: compressed bytes, hex in JSON lines) ----------------

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every part and exchange as one JSON-able row (compressed data in hex), parts first."""
        with self._db.lock:
            conn = self._db.connection()
            parts = conn.execute("SELECT sha256, data FROM parts ORDER BY sha256").fetchall()
            exchanges = conn.execute(
                "SELECT sha256, role, model, created_at, data FROM exchanges ORDER BY sha256"
            ).fetchall()
        for sha, data in parts:
            yield {"kind": "part", "sha256": sha, "data": bytes(data).hex()}
        for sha, role, model, created, data in exchanges:
            yield {"kind": "exchange", "sha256": sha, "role": role, "model": model, "created_at": created,
                   "data": bytes(data).hex()}

    def add_rows(self, rows: list[dict[str, Any]], where: str) -> int:
        """Import rows written by `rows()`; each is checked against its hash first, and nothing is written
        when one is wrong (`where` names the file for the error). Returns how many rows were new."""
        parts: list[tuple[str, bytes]] = []
        exchanges: list[tuple[str, str, str, str, bytes]] = []
        for number, row in enumerate(rows, start=1):
            try:
                data = bytes.fromhex(str(row["data"]))
                plain = zlib.decompress(data)
                kind = row["kind"]
            except (KeyError, ValueError, zlib.error) as exc:
                raise ExchangeImportError(f"{where}: row {number}: not a stored exchange row ({exc})") from exc
            if kind == "part":
                actual = _digest(plain)
                parts.append((str(row["sha256"]), data))
            elif kind == "exchange":
                record = ExchangeRecord.model_validate(orjson.loads(plain))
                actual = record.sha256()
                exchanges.append((str(row["sha256"]), record.role, record.model, str(row.get("created_at", "")), data))
            else:
                raise ExchangeImportError(f"{where}: row {number}: field kind: {kind!r} is not part or exchange")
            if actual != row["sha256"]:
                raise ExchangeImportError(f"{where}: row {number}: field sha256 does not match its data ({actual})")
        with self._db.lock:
            conn = self._db.connection()
            before = conn.total_changes
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany("INSERT OR IGNORE INTO parts (sha256, data) VALUES (?, ?)", parts)
                conn.executemany(
                    "INSERT OR IGNORE INTO exchanges (sha256, role, model, created_at, data) VALUES (?, ?, ?, ?, ?)",
                    exchanges,
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            return conn.total_changes - before

    def close(self) -> None:
        self._db.close()


def exchanges_file(log_path: Path) -> Path:
    """Where `events export LOG` writes the exchange store beside the log: `LOG` + `.exchanges.jsonl`."""
    return log_path.with_name(log_path.name + ".exchanges.jsonl")


def export_exchanges(store: ExchangeStore, path: Path) -> int:
    """Write a header line, then every row of the store (compressed bytes as stored, hex) as JSON lines; return
    how many rows."""
    count = 0
    tmp = path.with_name(path.name + ".partial")
    with tmp.open("wb") as handle:
        handle.write(header_line(EXCHANGES_FORMAT, EXCHANGES_FORMAT_VERSION).encode("utf-8"))
        for row in store.rows():
            handle.write(orjson.dumps(row) + b"\n")
            count += 1
    tmp.replace(path)
    return count


def exchanges_file_version(path: Path) -> int:
    """The format version of an exchanges export (0 when it has no header), checked: FormatVersionError when
    newer than this code reads."""
    try:
        with path.open("rb") as handle:
            first = next((line for line in handle if line.strip()), b"")
    except OSError as exc:
        raise ExchangeImportError(f"{path}: the exchanges file cannot be read ({exc})") from exc
    try:
        row = orjson.loads(first) if first else None
    except orjson.JSONDecodeError:
        return 0  # not a header; import_exchanges names the bad line
    return header_version(row, EXCHANGES_FORMAT, EXCHANGES_FORMAT_VERSION, str(path)) or 0


def import_exchanges(store: ExchangeStore, path: Path) -> int:
    """Import a file written by `export_exchanges` (all of it or, on a bad line, nothing); return new rows."""
    rows: list[dict[str, Any]] = []
    first = 0
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            first = first or number
            try:
                row = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise ExchangeImportError(f"{path}:{number}: not a JSON object ({exc})") from exc
            if not isinstance(row, dict):
                raise ExchangeImportError(f"{path}:{number}: not a JSON object")
            version = header_version(row, EXCHANGES_FORMAT, EXCHANGES_FORMAT_VERSION, str(path))
            if number == first and version is not None:
                continue  # the header of a versioned export (an unversioned one starts with its first row)
            rows.append(row)
    return store.add_rows(rows, str(path))


class ExchangeImportError(BadInputError, LLMError):
    """An exported exchange file that does not verify (bad row, hash mismatch): nothing of it is imported (bad
    input, exit 2; the message names the file and line)."""

    retryable = False


def _existing(conn: Any, keys: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(r[0] for r in conn.execute(f"SELECT sha256 FROM parts WHERE sha256 IN ({marks})", chunk))
    return found
