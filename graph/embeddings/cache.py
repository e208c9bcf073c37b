"""Persistent embedding cache: SQLite rows keyed by (encoder_id, sha256 of the text), float32 bytes."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from graph.embeddings.encoder import Vectors
from graph.paths import cache_dir

SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    encoder_id TEXT NOT NULL,
    text_sha256 BLOB NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (encoder_id, text_sha256)
) WITHOUT ROWID;
"""
# SQLite limits host parameters per statement; lookups go through a temp table instead of IN (...).
_LOOKUP_TABLE = "temp.wanted_keys"
_BUSY_TIMEOUT_MS = 60_000


def default_cache_path() -> Path:
    """`cache_dir()/embeddings.sqlite`, shared by every checkout on this machine."""
    return cache_dir() / "embeddings.sqlite"


def text_key(text: str) -> bytes:
    """The 32-byte sha256 of the text's UTF-8 bytes (lone surrogates kept, never an error)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _prepare(conn: sqlite3.Connection) -> None:
    if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    # NORMAL is durable across process crashes in WAL mode; only an OS crash may lose the last commits.
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(SCHEMA)
    conn.execute(f"CREATE TABLE IF NOT EXISTS {_LOOKUP_TABLE} (k BLOB PRIMARY KEY)")


def _with_lock_retries(step: Callable[[], None]) -> None:
    """Run `step`, retrying while another process holds the file's lock.

    Switching a new file to WAL needs an exclusive lock and SQLite may report "database is locked" at once,
    without waiting on the busy timeout, when several processes open a fresh cache together.
    """
    deadline = time.monotonic() + _BUSY_TIMEOUT_MS / 1000
    delay = 0.01
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


class EmbeddingCache:
    """Vectors by (encoder_id, text key) in one SQLite file, safe for concurrent processes.

    WAL mode lets readers run beside a writer; a busy timeout makes writers queue instead of failing.
    A stored row whose byte length is not dim*4 (truncated or corrupt) is treated as missing, and the
    next `put_many` of that key replaces it. A connection is opened per process (after fork, reopened).
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._lock = threading.RLock()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN ourselves so writes take the lock up front (IMMEDIATE).
        conn = sqlite3.connect(
            self.path, timeout=_BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
        _with_lock_retries(lambda: _prepare(conn))
        self._conn, self._pid = conn, os.getpid()
        return conn

    def get_many(self, encoder_id: str, keys: Sequence[bytes], dim: int) -> dict[bytes, Vectors]:
        """Stored vectors (float32, shape (dim,)) for those `keys` that have a valid row under `encoder_id`.

        Missing keys and rows of the wrong byte length are absent from the result.
        """
        if not keys:
            return {}
        expected_bytes = dim * 4
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN")
            try:
                conn.execute(f"DELETE FROM {_LOOKUP_TABLE}")
                conn.executemany(
                    f"INSERT OR IGNORE INTO {_LOOKUP_TABLE} (k) VALUES (?)", ((k,) for k in keys)
                )
                rows = conn.execute(
                    f"SELECT e.text_sha256, e.vector FROM {_LOOKUP_TABLE} AS w "
                    "JOIN embeddings AS e ON e.encoder_id = ? AND e.text_sha256 = w.k",
                    (encoder_id,),
                ).fetchall()
                conn.execute(f"DELETE FROM {_LOOKUP_TABLE}")
            finally:
                conn.execute("COMMIT")
        return {
            bytes(key): np.frombuffer(blob, dtype=np.float32).copy()
            for key, blob in rows
            if isinstance(blob, bytes) and len(blob) == expected_bytes
        }

    def put_many(
        self, encoder_id: str, items: Mapping[bytes, Vectors] | Iterable[tuple[bytes, Vectors]]
    ) -> int:
        """Store vectors under (encoder_id, key) in one transaction; return how many rows were written.

        An existing valid row is kept (same text, same encoder: same vector); a row of a different byte
        length (corrupt or truncated) is overwritten.
        """
        pairs = items.items() if isinstance(items, Mapping) else items
        rows = [
            (encoder_id, key, np.ascontiguousarray(vector, dtype=np.float32).tobytes())
            for key, vector in pairs
        ]
        if not rows:
            return 0
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                before = conn.total_changes
                conn.executemany(
                    "INSERT INTO embeddings (encoder_id, text_sha256, vector) VALUES (?, ?, ?) "
                    "ON CONFLICT (encoder_id, text_sha256) DO UPDATE SET vector = excluded.vector "
                    "WHERE length(embeddings.vector) != length(excluded.vector)",
                    rows,
                )
                written = conn.total_changes - before
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return written

    def count(self, encoder_id: str | None = None) -> int:
        """Number of stored rows, for one encoder or all."""
        with self._lock:
            conn = self._connection()
            if encoder_id is None:
                return int(conn.execute("SELECT count(*) FROM embeddings").fetchone()[0])
            query = "SELECT count(*) FROM embeddings WHERE encoder_id = ?"
            return int(conn.execute(query, (encoder_id,)).fetchone()[0])

    def close(self) -> None:
        """Close this process's connection (the next call reopens it)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
