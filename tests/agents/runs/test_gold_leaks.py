"""No item sees its own gold: the iKAT cut-off reaches the answering agent, and the gold-leak check (graph
and pre-ingest) flags any item whose reference answer or requirement text sits in a turn visible to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from neo4j import Driver
from typer.testing import CliRunner

from agents.gold_leaks import find_gold_leaks, find_gold_leaks_in_events
from agents.runs.state import item_contexts
from graph.events import ItemCreated, NewEvent, RequirementMapped
from graph.store import EventStore
from ingest.adapters.ikat import load_ikat
from ingest.pipeline import write_events
from tests.conftest import emptied_store
from tests.paths import FIXTURES

IKAT = FIXTURES / "ikat" / "2023_test_topics.json"
P = "ikat:2023-test:9-1"


@pytest.fixture(scope="module")
def ikat_store(driver: Driver, encoder) -> EventStore:  # type: ignore[no-untyped-def]
    store = emptied_store(driver, encoder)
    write_events(store, load_ikat(IKAT))
    return store


def test_ikat_items_see_history_only_up_to_the_turn_before_their_question(ikat_store: EventStore) -> None:
    result = load_ikat(IKAT)
    items = [n.event for n in result.events if isinstance(n.event, ItemCreated)]
    contexts = item_contexts(ikat_store, [i.item_id for i in items])
    for item in items:
        ctx = contexts[item.item_id]
        # before the fix the agent's cut-off came from times only, which iKAT lacks: it saw every turn
        assert ctx.before_turn_id == item.metadata["asked_after_turn_id"], item.item_id
        assert ctx.cutoff is not None and ctx.cutoff.turn_id == ctx.before_turn_id
    third = contexts[f"{P}:item:3"]
    assert third.before_turn_id == f"{P}:conv:2:assistant"
    assert (third.cutoff.session_ordinal, third.cutoff.turn_ordinal) == (1, 3)  # type: ignore[union-attr]


def test_gold_leak_check_passes_ikat_and_flags_an_item_without_a_cutoff(ikat_store: EventStore) -> None:
    clean = find_gold_leaks(ikat_store)
    assert clean.leaks == [] and clean.items_checked == 4 and clean.items_with_cutoff == 4
    assert find_gold_leaks_in_events([n.event for n in load_ikat(IKAT).events]) == []

    # An item asked after the whole conversation whose reference answer is a visible assistant turn.
    with ikat_store.driver.session(database=ikat_store.database) as session:
        answer = session.run("MATCH (t:Turn {id: $id}) RETURN t.text AS text", id=f"{P}:conv:1:assistant").single()
    assert answer is not None
    leaky = ItemCreated(
        item_id=f"{P}:item:leaky",
        profile_id=P,
        dataset="ikat-2023-test",
        question="What did you tell me first?",
        reference_answer=answer["text"],
    )
    # The same quote in an item whose requirement cites that turn is evidence (LoCoMo-style), not a leak.
    quoted = ItemCreated(
        item_id=f"{P}:item:quoted",
        profile_id=P,
        dataset="ikat-2023-test",
        question="What did you tell me first?",
        reference_answer=answer["text"],
    )
    cites = RequirementMapped(
        requirement_id=f"{P}:item:quoted:r0",
        item_id=f"{P}:item:quoted",
        ordinal=0,
        text="Repeat the first reply.",
        turn_ids=[f"{P}:conv:1:assistant"],
    )
    ikat_store.append([NewEvent(leaky, "test"), NewEvent(quoted, "test"), NewEvent(cites, "test")])
    report = find_gold_leaks(ikat_store, "ikat-2023-test")
    assert [(x.item_id, x.kind, x.turn_id) for x in report.leaks] == [
        (f"{P}:item:leaky", "reference_answer", f"{P}:conv:1:assistant")
    ]
    assert report.quoted_evidence == 1
    assert [x.turn_id for x in find_gold_leaks_in_events([leaky, *[n.event for n in load_ikat(IKAT).events]])] == [
        f"{P}:conv:1:assistant"
    ]

    from cli import app

    out = CliRunner().invoke(app, ["graph", "gold-leaks"])
    assert out.exit_code == 1, out.output
    assert f"{P}:item:leaky: reference_answer" in out.output and answer["text"][:30] not in out.output


def test_shared_ikat_has_no_item_that_sees_its_own_gold(shared_dir: Path) -> None:
    folder = shared_dir / "data" / "trec_ikat"
    if not folder.is_dir():
        pytest.skip("no ../shared/data/trec_ikat")
    result = load_ikat(folder)
    events = [n.event for n in result.events]
    assert result.counts["items"] > 100
    assert find_gold_leaks_in_events(events) == []


def test_state_list_is_cut_per_item_and_drops_states_without_sources(ikat_store: EventStore) -> None:
    from agents.memory.state_summary import STATE_SYSTEM
    from agents.runs.state import profile_states
    from graph.events import StateSpec, StateSummarized

    states = [
        StateSpec(state_id="ikat-st-ptkb", text="Vegetarian", source_turn_ids=[f"{P}:ptkb:1"]),
        StateSpec(state_id="ikat-st-answer", text="Was told a recipe", source_turn_ids=[f"{P}:conv:1:assistant"]),
        StateSpec(state_id="ikat-st-nosource", text="Somewhere in the talk"),
    ]
    summary = StateSummarized(profile_id=P, summary_id="ikat-sum-1", system=STATE_SYSTEM, states=states)
    ikat_store.append([NewEvent(summary, "test")])
    contexts = item_contexts(ikat_store, [f"{P}:item:1", f"{P}:item:3"])
    first = [s.state_id for s in profile_states(ikat_store, P, contexts[f"{P}:item:1"].cutoff)]
    third = [s.state_id for s in profile_states(ikat_store, P, contexts[f"{P}:item:3"].cutoff)]
    assert first == ["ikat-st-ptkb"]  # item 1 is asked before the first response: it cannot see that state
    assert third == ["ikat-st-answer", "ikat-st-ptkb"]
    assert len(profile_states(ikat_store, P)) == 3  # no cut-off: every state
