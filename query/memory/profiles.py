"""Checks that the profiles a memory build names exist (a typo must not silently build nothing)."""

from __future__ import annotations

from collections.abc import Sequence

from graph.cypher_files import load_cypher
from graph.store import EventStore
from query.errors import UnknownProfileError


def require_profiles(store: EventStore, profile_ids: Sequence[str | None]) -> None:
    """Raise UnknownProfileError naming every listed profile id that is not in the graph (None is skipped)."""
    wanted = [pid for pid in profile_ids if pid is not None]
    if not wanted:
        return
    with store.driver.session(database=store.database) as session:
        record = session.run(load_cypher("memory/missing_profiles"), profile_ids=wanted).single()
    missing = list(record["missing"]) if record else []
    if missing:
        raise UnknownProfileError(
            f"no profile {', '.join(repr(m) for m in missing)} in the graph; ingest its dataset first, "
            "or check the id (ids are case-sensitive)"
        )
