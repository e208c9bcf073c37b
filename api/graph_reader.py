"""Read-only access to the evidence graph for the API: named Cypher files under cypher/api/, run on the async driver.

Every statement is a file loaded by name and every value reaches Neo4j as a parameter, so nothing a client
sends is ever spliced into Cypher text. Each query returns one record whose `rows` column is the list of its
result rows (`... RETURN collect({...}) AS rows`): the async driver spends far more time per record than per
value, so one record per query keeps a request's CPU cost low. Sessions are kept and reused one query at a time
(making a session's configuration cost about a seventh of a small query's client CPU).
"""

from __future__ import annotations

from typing import Any

from neo4j import READ_ACCESS, AsyncDriver, AsyncSession
from neo4j.exceptions import ServiceUnavailable, SessionExpired, TransientError

from api.errors import ServiceUnavailableError
from graph.cypher_files import load_cypher

# Idle sessions kept for reuse; more than this many at once (a burst of concurrent queries) are closed after use.
MAX_IDLE_SESSIONS = 64


class GraphReader:
    """Runs named read queries (`cypher/api/<name>.cypher`) and returns their rows as plain dicts."""

    def __init__(self, driver: AsyncDriver, database: str = "neo4j") -> None:
        self.driver = driver
        self.database = database
        self._idle: list[AsyncSession] = []

    async def rows(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """The rows of the named query, in its order (read routing, auto-commit). A session that ran a query
        without error is kept for the next query; any other is closed."""
        session = self._idle.pop() if self._idle else self._open_session()
        try:
            try:
                result = await session.run(load_cypher(f"api/{name}"), params)
                record = await result.single(strict=True)
            except BaseException:
                await session.close()
                raise
            if len(self._idle) < MAX_IDLE_SESSIONS:
                self._idle.append(session)
            else:
                await session.close()
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise ServiceUnavailableError("the graph database is not reachable right now; try again later") from exc
        except TransientError as exc:
            # e.g. Neo.TransientError.General.MemoryPoolOutOfMemoryError: the server's bound on transaction memory
            # (COLABENCH_NEO4J_TX_MAX_MIB) refused this query while others held it; the same request can succeed later
            raise ServiceUnavailableError(
                f"the graph database is busy right now ({exc.code}); try again shortly"
            ) from exc
        rows: list[dict[str, Any]] = record["rows"]
        return rows

    def _open_session(self) -> AsyncSession:
        return self.driver.session(database=self.database, default_access_mode=READ_ACCESS)

    async def close(self) -> None:
        """Close the idle sessions (the driver itself belongs to the caller)."""
        idle, self._idle = self._idle, []
        for session in idle:
            await session.close()

    async def one(self, name: str, **params: Any) -> dict[str, Any] | None:
        """The first row of the named query, or None."""
        found = await self.rows(name, **params)
        return found[0] if found else None

    async def head_seq(self) -> int:
        """The seq of the log head (0 before the first event)."""
        head = await self.one("log_head")
        return int(head["seq"]) if head else 0
