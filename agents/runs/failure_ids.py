"""Deterministic ids of EndpointFailed events: content-derived from the run, role, stage, subject (attempt or
profile) and the try number, so the same failure of the same try always has the same id. Appending it twice
(a retried transaction, a replayed or re-imported log, two invocations resuming the same batch at once) is
then one failure, not two; a later try that fails again is a new failure with the next try number.

The try number of a failure is 1 + the failures already recorded for the same (run, role, stage, subject):
each invocation tries an attempt's answer, each judge of an attempt and each profile's prerequisite at most
once, so this counts the tries that failed before."""

from __future__ import annotations

from graph.cypher_files import load_cypher
from graph.hashing import canonical_json, text_sha256
from graph.store import EventStore


def failure_id(
    run_id: str, role: str, stage: str, *, attempt_id: str | None = None, profile_id: str | None = None, try_number: int
) -> str:
    """`<attempt or run>:fail:<12 hex>`, the hex a SHA-256 of (run, role, stage, attempt, profile, try)."""
    digest = text_sha256(canonical_json([run_id, role, stage, attempt_id, profile_id, try_number]))[:12]
    return f"{attempt_id or run_id}:fail:{digest}"


def next_try_number(
    store: EventStore,
    run_id: str,
    role: str,
    stage: str,
    *,
    attempt_id: str | None = None,
    profile_id: str | None = None,
) -> int:
    """1 + the EndpointFailures recorded for this (run, role, stage, attempt, profile)."""
    with store.driver.session(database=store.database) as session:
        record = session.run(
            load_cypher("agents/failure_tries"),
            run_id=run_id,
            role=role,
            stage=stage,
            attempt_id=attempt_id or "",
            profile_id=profile_id or "",
        ).single()
    return 1 + int(record["n"] if record else 0)
