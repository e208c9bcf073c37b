"""What the graph says about a run and its items: progress of each attempt, what the agent may know of an
item (question, time, history cut-off), the profile's states for the MemKB prompt. (An attempt's latest verdict
is read in agents/judging/verdicts.py.)"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agents.history_cutoff import item_cutoff_turn, item_metadata
from agents.memory.state_summary import STATE_SYSTEM
from graph.cypher_files import load_cypher
from graph.store import EventStore, LogHead
from query.memory_channels import Cutoff
from query.results import StateHit
from query.states import profile_states as load_states


@dataclass(frozen=True)
class ItemContext:
    """What the answering agent may know of an item (never its reference answer, requirements or gold)."""

    item_id: str
    profile_id: str
    question: str
    asked_at: str | None
    before_turn_id: str | None
    # the same cut-off as session/turn ordinals, for the state list (None: the whole history is visible)
    cutoff: Cutoff | None = None


def run_progress(store: EventStore, run_id: str) -> dict[str, Any]:
    """Whether the run exists, its status and usage, and per attempt its status, verdict and judgment ids."""
    with store.driver.session(database=store.database) as session:
        record = session.run(load_cypher("agents/run_progress"), run_id=run_id).single()
    assert record is not None
    return {
        "exists": bool(record["exists"]),
        "status": record["status"],
        "usage": json.loads(record["usage"]) if record["usage"] else {},
        "attempts": list(record["attempts"]),
    }


def batch_dataset_head(store: EventStore, batch_id: str) -> LogHead:
    """The dataset fingerprint of a batch's runs: the log head when the batch's first run started, so every run
    of one batch records the same one, also when a resume starts some of them after others have written (the
    log head then includes the batch's own answers, which no run reads as data); the current head when no run
    of the batch has started."""
    with store.driver.session(database=store.database) as session:
        record = session.run(load_cypher("agents/batch_dataset_head"), batch_id=batch_id).single()
    if record is None:
        return store.head()
    return LogHead(int(record["seq"]), str(record["hash"]))


def item_contexts(store: EventStore, item_ids: list[str]) -> dict[str, ItemContext]:
    """The agent's view of each item, with the history cut-off when turns follow the request."""
    with store.driver.session(database=store.database) as session:
        records = list(session.run(load_cypher("agents/item_contexts"), item_ids=item_ids))
    contexts: dict[str, ItemContext] = {}
    for r in records:
        turns = list(r["turns"])
        cut_id = item_cutoff_turn(item_metadata(r["metadata"]), turns, r["asked_at"])
        cut = next((t for t in turns if t["id"] == cut_id), None) if cut_id else None
        contexts[r["item_id"]] = ItemContext(
            item_id=r["item_id"],
            profile_id=r["profile_id"],
            question=r["question"],
            asked_at=r["asked_at"],
            before_turn_id=cut_id,
            cutoff=Cutoff(cut_id, int(cut["session_ordinal"]), int(cut["ordinal"])) if cut_id and cut else None,
        )
    return contexts


def profile_states(store: EventStore, profile_id: str, cutoff: Cutoff | None = None) -> list[StateHit]:
    """The active states of the profile's MemKB state summary visible at the item's history cut-off (all of
    them without one), for the system prompt."""
    states, _notes = load_states(store.driver, store.database, profile_id, STATE_SYSTEM, cutoff)
    return states


def memory_build_costs(store: EventStore, system: str, profile_ids: list[str] | None = None) -> dict[str, Any]:
    """What building `system`'s memory cost for these profiles (from its MemoryPairProcessed events): pairs,
    LLM calls, tokens and seconds, per profile and in total (empty for systems that do not build by pair)."""
    with store.driver.session(database=store.database) as session:
        rows = [dict(r) for r in session.run(load_cypher("memory/build_steps"), system=system, profile_ids=profile_ids)]
    if not rows:
        return {}
    total = {k: sum(r[k] or 0 for r in rows) for k in ("pairs", "llm_calls", "tokens_in", "tokens_out", "seconds")}
    total["seconds"] = round(float(total["seconds"]), 3)
    total["seconds_per_pair"] = round(total["seconds"] / total["pairs"], 4) if total["pairs"] else None
    profiles = {r["profile_id"]: {k: v for k, v in r.items() if k != "profile_id"} for r in rows}
    return {"total": total, "profiles": profiles}
