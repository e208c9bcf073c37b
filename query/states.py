"""The state list S(H) of a profile as retrieval and the answering agent read it."""

from __future__ import annotations

from neo4j import Driver

from graph.cypher_files import load_cypher
from query.memory_channels import Cutoff
from query.results import StateHit


def profile_states(
    driver: Driver, database: str, profile_id: str, system: str, cutoff: Cutoff | None = None
) -> tuple[list[StateHit], list[str]]:
    """The profile's active states of one state system visible at the cut-off (all of them without one), in
    state id order, and notes on what is missing or hidden."""
    notes: list[str] = []
    with driver.session(database=database) as session:
        rows = list(
            session.run(
                load_cypher("query/profile_states"),
                profile_id=profile_id,
                system=system,
                cut_session=cutoff.session_ordinal if cutoff else None,
                cut_turn=cutoff.turn_ordinal if cutoff else None,
            )
        )
    visible = [r for r in rows if r["visible"]]
    if not rows:
        notes.append(
            f"no state summary (system {system!r}) exists for profile {profile_id} yet: the state list is empty"
        )
    elif len(visible) < len(rows):
        notes.append(
            f"{len(rows) - len(visible)} of {len(rows)} states derive from turns after the history cut-off "
            "and are left out"
        )
    stale = max((int(r["turns_after"]) for r in rows), default=0)
    if stale and cutoff is None:
        notes.append(
            f"the state summary is stale: {stale} turn(s) of profile {profile_id} were appended after it; "
            "`memory build` or the next run summarises again"
        )
    states = [
        StateHit(
            state_id=r["state_id"],
            text=r["text"] or "",
            concerns=r["concerns"],
            time_context=r["time_context"],
            unresolved=list(r["unresolved"]),
            source_turn_ids=list(r["source_turn_ids"]),
        )
        for r in visible
    ]
    return states, notes
