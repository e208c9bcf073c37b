"""Update points on real input formats: a LongMemEval knowledge-update question yields a fact per evidence
session, the later one `supersedes` the earlier; a bundle fact's optional `supersedes` field is recorded and
checked (it must name another fact of the same profile); both become the update points `eval memory` judges."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agents.memory_quality.points import load_fact_points, update_points
from graph.events import (
    FactDisclosed,
    FactRecorded,
    NewEvent,
    ProfileCreated,
    SessionStarted,
    TopicPlanned,
    TurnAppended,
)
from graph.store import EventStore
from ingest.adapters import AdapterResult
from ingest.errors import InputError
from ingest.pipeline import load_input
from tests.paths import REPO

LME_S = REPO / "tests" / "fixtures" / "longmemeval_qa_mini" / "longmemeval_s_qa.json"
MINI = REPO / "tests" / "fixtures" / "mini_bundle"
KU_PROFILE = "lme-s:qa0upd01"


def test_longmemeval_knowledge_update_question_gives_a_superseding_fact_per_evidence_session() -> None:
    result = load_input(LME_S, "longmemeval")
    facts = [e.event for e in result.events if isinstance(e.event, FactRecorded)]
    assert [(f.fact_id, f.metadata.get("supersedes")) for f in facts] == [
        (f"{KU_PROFILE}:ku0", None),
        (f"{KU_PROFILE}:ku1", f"{KU_PROFILE}:ku0"),
    ]
    assert "three bikes" in facts[0].text and "four bikes" in facts[1].text  # history text, in date order
    assert all(f.category == "knowledge-update" and f.profile_id == KU_PROFILE for f in facts)
    disclosed = {(e.event.fact_id, e.event.turn_id) for e in result.events if isinstance(e.event, FactDisclosed)}
    assert {f for f, _ in disclosed} == {f.fact_id for f in facts} and len(disclosed) == 2
    assert result.counts["update_points"] == 1
    turns = {e.event.turn_id: e.event.text for e in result.events if e.event.TYPE == "TurnAppended"}
    assert [f.text for f in facts] == [turns[t] for _, t in sorted(disclosed)]  # history text only, no gold


def _bundle(tmp_path: Path, supersedes: str) -> Path:
    folder = tmp_path / "bundle"
    shutil.copytree(MINI, folder)
    lines = (folder / "facts.jsonl").read_text("utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    for r in records:
        if r["fact_id"] == "mini-f-antihistamine":
            r["supersedes"] = supersedes
    (folder / "facts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return folder


def test_a_bundle_fact_supersedes_only_another_fact_of_its_profile(tmp_path: Path) -> None:
    with pytest.raises(InputError) as refused:
        load_input(_bundle(tmp_path / "bad", "mini-f-knee"), "bundle")  # a fact of another profile
    assert "facts.jsonl:3: supersedes: 'mini-f-knee' is not another fact of 'mini-p-sam'" in str(refused.value)


def _history_of(result: AdapterResult, profile_id: str) -> list[NewEvent]:
    """Only the profile, its facts, topics, sessions, turns and disclosures (no documents to embed: fast)."""
    sessions = {
        e.event.session_id
        for e in result.events
        if isinstance(e.event, SessionStarted) and e.event.profile_id == profile_id
    }
    turns = {
        e.event.turn_id for e in result.events if isinstance(e.event, TurnAppended) and e.event.session_id in sessions
    }
    keep = []
    for e in result.events:
        ev = e.event
        if (
            (
                isinstance(ev, (ProfileCreated, FactRecorded, TopicPlanned, SessionStarted))
                and ev.profile_id == profile_id
            )
            or (isinstance(ev, TurnAppended) and ev.turn_id in turns)
            or (isinstance(ev, FactDisclosed) and ev.turn_id in turns)
        ):
            keep.append(e)
    return keep


@pytest.mark.neo4j
def test_superseding_facts_from_both_formats_are_update_points_in_the_graph(store: EventStore, tmp_path: Path) -> None:
    store.append(_history_of(load_input(_bundle(tmp_path, "mini-f-asthma"), "bundle"), "mini-p-sam"))
    store.append(_history_of(load_input(LME_S, "longmemeval"), KU_PROFILE))
    points = load_fact_points(store.driver, store.database, "raw_turns", ["mini-p-sam", KU_PROFILE])
    pairs = {(old.fact_id, new.fact_id) for old, new in update_points(points)}
    assert pairs == {("mini-f-asthma", "mini-f-antihistamine"), (f"{KU_PROFILE}:ku0", f"{KU_PROFILE}:ku1")}
