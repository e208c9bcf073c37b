"""Read-only access to the evidence graph for the API: named Cypher files under cypher/api/, run on the async driver.

Every statement is a file loaded by name and every value reaches Neo4j as a parameter, so nothing a client
sends is ever spliced into Cypher text. Each query returns one record whose `rows` column is the list of its
result rows (`... RETURN collect({...}) AS rows`): the async driver spends far more time per record than per
value, so one record per query keeps a request's CPU cost low.
"""

from __future__ import annotations

from typing import Any

from neo4j import READ_ACCESS, AsyncDriver
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from api.errors import ServiceUnavailableError
from graph.cypher_files import load_cypher


class GraphReader:
    """Runs named read queries (`cypher/api/<name>.cypher`) and returns their rows as plain dicts."""

    def __init__(self, driver: AsyncDriver, database: str = "neo4j") -> None:
        self.driver = driver
        self.database = database

    async def rows(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """The rows of the named query, in its order (read routing, auto-commit, no bookmarks)."""
        try:
            async with self.driver.session(database=self.database, default_access_mode=READ_ACCESS) as session:
                result = await session.run(load_cypher(f"api/{name}"), params)
                record = await result.single(strict=True)
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise ServiceUnavailableError("the graph database is not reachable right now; try again later") from exc
        rows: list[dict[str, Any]] = record["rows"]
        return rows

    async def one(self, name: str, **params: Any) -> dict[str, Any] | None:
        """The first row of the named query, or None."""
        found = await self.rows(name, **params)
        return found[0] if found else None

    async def head_seq(self) -> int:
        """The seq of the log head (0 before the first event)."""
        head = await self.one("log_head")
        return int(head["seq"]) if head else 0
