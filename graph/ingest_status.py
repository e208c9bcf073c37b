"""Which ingests are not complete: an `IngestStarted` without its `IngestCompleted` (ingest/pipeline.py writes
both around an input's events), each either "in progress" (its process holds a lease renewed within its expiry,
graph/ingest_lease.py) or "interrupted" (no lease, or an expired one: a crash or a kill). Until the ingest
completes, part of its documents, chunks or sessions may be missing, so every command that reads the graph says
so, and which of the two it is."""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from graph.cypher_files import load_cypher

IN_PROGRESS = "in progress"
INTERRUPTED = "interrupted"


def incomplete_ingests(driver: Driver, database: str, now_ms: int | None = None) -> list[dict[str, Any]]:
    """Every incomplete ingest with its `state` and lease (`lease_pid`, `lease_host`, `lease_age_s`, ...);
    `now_ms`: read the leases as at this time of the database's clock (default: now)."""
    with driver.session(database=database) as session:
        return [dict(r) for r in session.run(load_cypher("ingest/incomplete_ingests"), now_ms=now_ms)]


def _named(i: dict[str, Any]) -> str:
    return f"{i['dataset']} ({i['ingest_id']}, {i['n_events']:,} events)"


def _holder(i: dict[str, Any]) -> str:
    return f"pid {i['lease_pid']} on {i['lease_host']}"


def incomplete_ingest_text(ingests: list[dict[str, Any]]) -> str | None:
    """One line naming the incomplete ingests, running or interrupted, and what to do (None when there are none)."""
    if not ingests:
        return None
    running = [i for i in ingests if i.get("state") == IN_PROGRESS]
    stopped = [i for i in ingests if i.get("state") != IN_PROGRESS]
    parts: list[str] = []
    if running:
        listed = ", ".join(
            f"{_named(i)} by {_holder(i)}, lease renewed {i['lease_age_s']:.0f} s ago" for i in running
        )
        parts.append(
            f"ingest in progress: {listed}; until it completes the graph may lack part of its documents, chunks or "
            "sessions"
        )
    if stopped:
        listed = ", ".join(
            _named(i)
            + (
                f" (its lease from {_holder(i)} expired: last renewed {i['lease_age_s']:.0f} s ago, expiry "
                f"{i['lease_expires_after_s']:g} s)"
                if i.get("lease_pid") is not None
                else ""
            )
            for i in stopped
        )
        parts.append(
            f"incomplete ingest: {listed} was interrupted; the graph may lack part of its documents, chunks or "
            "sessions until you run the same `./colabench ingest` again (it resumes)"
        )
    return "; ".join(parts)
