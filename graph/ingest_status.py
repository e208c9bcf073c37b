"""Which ingests were interrupted: an `IngestStarted` without its `IngestCompleted` (ingest/pipeline.py writes
both around an input's events). Until the ingest is run again, part of its documents, chunks or sessions may be
missing, so every command that reads the graph says so."""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from graph.cypher_files import load_cypher


def incomplete_ingests(driver: Driver, database: str) -> list[dict[str, Any]]:
    with driver.session(database=database) as session:
        return [dict(r) for r in session.run(load_cypher("ingest/incomplete_ingests"))]


def incomplete_ingest_text(ingests: list[dict[str, Any]]) -> str | None:
    """One line naming the incomplete ingests and how to finish them (None when there are none)."""
    if not ingests:
        return None
    listed = ", ".join(
        f"{i['dataset']} ({i['ingest_id']}, {i['n_events']:,} events)" for i in ingests
    )
    return (
        f"incomplete ingest: {listed} was interrupted; the graph may lack part of its documents, chunks or "
        "sessions until you run the same `./colabench ingest` again (it resumes)"
    )
