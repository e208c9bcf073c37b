"""The gold-leak check: no item's reference answer or requirement text may sit in a turn the item can see.

Visibility is the answering agent's own rule (`agents.history_cutoff.item_cutoff_turn`): the turns up to the
item's history cut-off, or every turn of its profile when nothing follows the request. A turn the item's own
requirements cite as evidence (STATED_IN) may quote the answer (LoCoMo answers are spans of their evidence
turns): such matches are counted apart, not reported as leaks. A finding names ids and the kind of gold only,
never the gold text, so the output can be shown and logged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.history_cutoff import item_cutoff_turn, item_metadata
from graph.cypher_files import load_cypher
from graph.events import DomainEvent, ItemCreated, RequirementMapped, SessionStarted, TurnAppended
from graph.store import EventStore

# Gold shorter than this counts only when a turn says exactly it (short answers such as "2" or "yes" are
# contained in many innocent turns); longer gold counts when a turn contains it.
MIN_CONTAINED_CHARS = 40
_BATCH = 500


@dataclass(frozen=True)
class GoldLeak:
    item_id: str
    profile_id: str
    dataset: str | None
    kind: str  # reference_answer | requirement | cutoff_unknown
    gold_id: str  # the item id (reference answer) or the requirement id
    turn_id: str  # the visible turn holding it (or the declared cut-off turn that does not exist)


@dataclass(frozen=True)
class GoldLeakReport:
    items_checked: int
    items_with_cutoff: int
    leaks: list[GoldLeak]
    quoted_evidence: int = 0  # matches in a turn the item's requirements cite (expected, not a leak)

    @property
    def leaking_items(self) -> int:
        return len({leak.item_id for leak in self.leaks})


def _cut_row(record: Any) -> tuple[dict[str, Any], GoldLeak | None]:
    turns = list(record["turns"])
    cut_id = item_cutoff_turn(item_metadata(record["metadata"]), turns, record["asked_at"])
    row: dict[str, Any] = {"item_id": record["item_id"], "cut_session": None, "cut_turn": None}
    if cut_id is None:
        return row, None
    cut = next((t for t in turns if t["id"] == cut_id), None)
    if cut is None:
        # A cut-off the agent cannot apply (its search refuses it): report it instead of checking blind.
        problem = GoldLeak(record["item_id"], record["profile_id"], None, "cutoff_unknown", record["item_id"], cut_id)
        return row, problem
    row.update(cut_session=int(cut["session_ordinal"]), cut_turn=int(cut["ordinal"]))
    return row, None


def find_gold_leaks(store: EventStore, dataset: str | None = None) -> GoldLeakReport:
    """Every (item, gold, visible turn) where the turn states the gold verbatim, for one dataset or all."""
    rows: list[dict[str, Any]] = []
    leaks: list[GoldLeak] = []
    quoted = 0
    with store.driver.session(database=store.database) as session:
        for record in session.run(load_cypher("integrity/item_turn_orders"), dataset=dataset):
            row, problem = _cut_row(record)
            if problem is not None:
                leaks.append(problem)
                continue
            rows.append(row)
        query = load_cypher("integrity/gold_in_visible_turns")
        for start in range(0, len(rows), _BATCH):
            batch = rows[start : start + _BATCH]
            for r in session.run(query, rows=batch, min_contained=MIN_CONTAINED_CHARS):
                if r["evidence"]:
                    quoted += 1
                    continue
                leaks.append(
                    GoldLeak(r["item_id"], r["profile_id"], r["dataset"], r["kind"], r["gold_id"], r["turn_id"])
                )
    with_cut = sum(1 for row in rows if row["cut_session"] is not None)
    return GoldLeakReport(
        items_checked=len(rows) + len({x.item_id for x in leaks if x.kind == "cutoff_unknown"}),
        items_with_cutoff=with_cut,
        leaks=leaks,
        quoted_evidence=quoted,
    )


def gold_visible_in(turn_text: str, gold: str) -> bool:
    """The verbatim rule the Cypher check applies: equal after trimming, or contained when long enough."""
    turn, wanted = turn_text.strip(), gold.strip()
    if not wanted:
        return False
    return turn == wanted or (len(wanted) >= MIN_CONTAINED_CHARS and wanted in turn)


def find_gold_leaks_in_events(events: list[DomainEvent]) -> list[GoldLeak]:
    """The same check over an adapter's events before they are written (no Neo4j): sessions and turns in
    ordinal order per profile, the agent's cut-off rule, the verbatim rule, cited evidence turns exempt."""
    sessions = {e.session_id: e for e in events if isinstance(e, SessionStarted)}
    turns_by_profile: dict[str, list[tuple[int, int, TurnAppended]]] = {}
    for e in events:
        if isinstance(e, TurnAppended) and e.session_id in sessions:
            session = sessions[e.session_id]
            turns_by_profile.setdefault(session.profile_id, []).append((session.ordinal, e.ordinal, e))
    requirements: dict[str, list[RequirementMapped]] = {}
    cited: dict[str, set[str]] = {}
    for e in events:
        if isinstance(e, RequirementMapped):
            requirements.setdefault(e.item_id, []).append(e)
            cited.setdefault(e.item_id, set()).update(e.turn_ids)
    leaks: list[GoldLeak] = []
    for item in (e for e in events if isinstance(e, ItemCreated)):
        ordered = [t for *_, t in sorted(turns_by_profile.get(item.profile_id, []), key=lambda x: (x[0], x[1]))]
        listed = [{"id": t.turn_id, "at": t.at or sessions[t.session_id].started_at} for t in ordered]
        cut = item_cutoff_turn(dict(item.metadata or {}), listed, item.asked_at)
        ids = [t.turn_id for t in ordered]
        if cut is not None and cut not in ids:
            leaks.append(GoldLeak(item.item_id, item.profile_id, item.dataset, "cutoff_unknown", item.item_id, cut))
            continue
        visible = ordered if cut is None else ordered[: ids.index(cut) + 1]
        gold = [("reference_answer", item.item_id, item.reference_answer or "")]
        gold += [("requirement", r.requirement_id, r.text or "") for r in requirements.get(item.item_id, [])]
        for turn in (t for t in visible if t.turn_id not in cited.get(item.item_id, set())):
            for kind, gold_id, text in gold:
                if gold_visible_in(turn.text or "", text):
                    leaks.append(GoldLeak(item.item_id, item.profile_id, item.dataset, kind, gold_id, turn.turn_id))
    return leaks
