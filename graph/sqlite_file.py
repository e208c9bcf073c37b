"""One SQLite file shared by the threads and processes of this machine (the embedding and LLM caches)."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from graph.format_version import check_version

BUSY_TIMEOUT_MS = 60_000


class SharedSqliteFile:
    """A per-process connection to `path` (reopened after fork), in WAL mode with a busy timeout, whose
    `schema` script has run. Callers hold `lock` around each use of `connection()`.

    WAL lets readers run beside a writer; the busy timeout makes writers queue instead of failing.
    Connections use `isolation_level=None`: callers issue BEGIN themselves (IMMEDIATE for writes).

    With a `format_version`, the file carries it in SQLite's `user_version`: a file written by a newer colabench
    is refused on open (FormatVersionError), an older or unversioned one (0) is read and stamped with it.
    """

    def __init__(self, path: Path, schema: str, format_version: int | None = None) -> None:
        self.path = Path(path)
        self._schema = schema
        self._format_version = format_version
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self.lock = threading.RLock()

    def connection(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        try:
            _retry_while_locked(lambda: self._prepare(conn))
        except BaseException:
            conn.close()
            raise
        self._conn, self._pid = conn, os.getpid()
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL is durable across process crashes in WAL mode; only an OS crash may lose the last commits.
        conn.execute("PRAGMA synchronous = NORMAL")
        if self._format_version is not None:
            found = int(conn.execute("PRAGMA user_version").fetchone()[0])
            check_version(found, self._format_version, str(self.path))
            if found < self._format_version:
                conn.execute(f"PRAGMA user_version = {int(self._format_version)}")
        conn.executescript(self._schema)

    def close(self) -> None:
        """Close this process's connection (the next `connection()` reopens it)."""
        with self.lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None


def _retry_while_locked(step: Callable[[], None]) -> None:
    """Run `step`, retrying while another process holds the file's lock.

    Switching a new file to WAL needs an exclusive lock, and SQLite may report "database is locked" at
    once, without waiting on the busy timeout, when several processes open a fresh file together.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
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
