"""Persistent LLM response cache: SQLite rows keyed by the SHA-256 of the canonical request.

The key covers everything that shapes a reply (model, messages, tools, tool choice, response format,
sampling parameters, provider extras) and the endpoint that gave it (its base URL, normalised by
`endpoint_identity`), not the API key. A rerun of the same requests against the same endpoint therefore costs
nothing and returns the identical replies; another endpoint (another port, host or path) never gets them. What the
server does with a request (its chat template, quantisation) is not in the request: set a cache namespace to keep
setups of one URL apart.
Only replies that were checked are stored: a reply cut by `max_tokens` or a structured reply that failed
validation is never cached.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from graph.hashing import canonical_bytes
from graph.sqlite_file import SharedSqliteFile

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    request_sha256 TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at TEXT NOT NULL,
    response TEXT NOT NULL
) WITHOUT ROWID;
"""


def endpoint_identity(base_url: str) -> str:
    """The base URL as the cache key sees it: scheme and host lower-cased, user info (credentials), fragment, a
    default port (80, 443) and trailing slashes dropped; the path and query kept (they select the endpoint)."""
    parts = urlsplit(base_url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"  # an IPv6 literal
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    return urlunsplit((scheme, host, parts.path.rstrip("/"), parts.query, ""))


def request_key(request: dict[str, Any], namespace: str = "", endpoint: str = "") -> str:
    """SHA-256 hex of the canonical JSON of a chat request (sorted keys, no whitespace). A non-empty `endpoint`
    (a base URL; the client always gives its own) and `namespace` (COLABENCH_LLM_CACHE_NAMESPACE: one endpoint
    setup, e.g. a server's chat template) scope the key, so replies cached from another endpoint or setup are not
    returned; with neither it is the plain request hash."""
    import hashlib

    scope: dict[str, Any] = {}
    if endpoint:
        scope["endpoint"] = endpoint_identity(endpoint)
    if namespace:
        scope["cache_namespace"] = namespace
    if scope:
        return hashlib.sha256(canonical_bytes({**scope, "request": request})).hexdigest()
    return hashlib.sha256(canonical_bytes(request)).hexdigest()


class ResponseCache:
    """Normalised replies by request hash in one `SharedSqliteFile` (safe across threads and processes)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._db = SharedSqliteFile(self.path, _SCHEMA)

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored reply for a request hash, or None (a corrupt row counts as missing)."""
        with self._db.lock:
            row = self._db.connection().execute(
                "SELECT response FROM responses WHERE request_sha256 = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except json.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, *, model: str, role: str, response: dict[str, Any]) -> None:
        """Store (or replace) the reply of a request."""
        text = json.dumps(response, ensure_ascii=False, sort_keys=True)
        with self._db.lock:
            self._db.connection().execute(
                "INSERT INTO responses (request_sha256, model, role, created_at, response) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (request_sha256) DO UPDATE SET response = excluded.response, "
                "created_at = excluded.created_at",
                (key, model, role, datetime.now(UTC).isoformat(timespec="seconds"), text),
            )

    def count(self) -> int:
        with self._db.lock:
            return int(self._db.connection().execute("SELECT count(*) FROM responses").fetchone()[0])

    def stats(self) -> list[tuple[str, str, int]]:
        """(role, model, rows) for `./colabench llm cache`."""
        with self._db.lock:
            rows = self._db.connection().execute(
                "SELECT role, model, count(*) FROM responses GROUP BY role, model ORDER BY role, model"
            ).fetchall()
        return [(str(r), str(m), int(n)) for r, m, n in rows]

    def clear(self, role: str | None = None) -> int:
        """Delete rows (of one role, or all); return how many."""
        with self._db.lock:
            conn = self._db.connection()
            before = conn.total_changes
            if role is None:
                conn.execute("DELETE FROM responses")
            else:
                conn.execute("DELETE FROM responses WHERE role = ?", (role,))
            return conn.total_changes - before

    def close(self) -> None:
        self._db.close()
