"""A one-number Cypher query, for tests that compare graph counts."""

from __future__ import annotations

from neo4j import Driver


def count(driver: Driver, query: str, **params: object) -> int:
    """The first column of the single record `query` returns, as an int."""
    with driver.session() as session:
        record = session.run(query, params).single()
    assert record is not None
    return int(record[0])
