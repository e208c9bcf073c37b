"""Memory cards (raw user turns), their document links, and MemKB search on the `mini` bundle.

The module builds cards and links once on top of the module's mini store; tests only read after that,
except the states test at the end, which appends a state summary for one profile (mini-p-ravi)."""

from __future__ import annotations

import pytest

from agents.memory.cards import LINK_BUILDER, build_document_links, build_raw_turn_cards
from graph.events import NewEvent, ProfileCreated, SessionStarted, StateSpec, StateSummarized, ToolCallRecord
from graph.events import TurnAppended as Turn
from graph.store import EventStore
from query.recipes import MEMKB_NO_LINKS, MEMKB_NO_STATE, Recipe
from query.retriever import Retriever

pytestmark = pytest.mark.neo4j


def _raw(recipe: Recipe) -> Recipe:
    """A MemKB ablation read over raw-turn cards (the registered ablations read Mem0's memories)."""
    return recipe.model_copy(update={"memory_system": "raw_turns"})


NO_LINKS_RAW = _raw(MEMKB_NO_LINKS)
NO_STATE_RAW = _raw(MEMKB_NO_STATE)

SAM_USER_TURNS = ["mini-s-1-t0", "mini-s-1-t2", "mini-s-2-t0", "mini-s-2-t2"]
SAM_EXPOSED = {
    "mini-tattoo-aftercare",
    "mini-clinic-hours",
    "mini-travel-vaccines",
    "mini-asthma-inhalers",
    "mini-repeat-prescriptions",
}
ALL_DOCS = SAM_EXPOSED | {
    "mini-flu-vaccine",
    "mini-blood-donation",
    "mini-strength-class",
    "mini-knee-surgery-recovery",
    "mini-allergy-testing",
}


@pytest.fixture(scope="module")
def built(mini_store: EventStore, encoder):  # type: ignore[no-untyped-def]
    """Cards and links for the mini bundle, plus a ghost profile whose assistant read a missing document."""
    mini_store.append(
        [
            NewEvent(ProfileCreated(profile_id="ghost-p", dataset="test"), "test"),
            NewEvent(SessionStarted(session_id="ghost-s", profile_id="ghost-p", ordinal=0), "test"),
            NewEvent(
                Turn(turn_id="ghost-t0", session_id="ghost-s", ordinal=0, role="user", text="My knee hurts."), "test"
            ),
            NewEvent(
                Turn(
                    turn_id="ghost-t1",
                    session_id="ghost-s",
                    ordinal=1,
                    role="assistant",
                    text="Here is what the leaflets say.",
                    tool_calls=[
                        ToolCallRecord(tool="read", arguments={"doc_id": "gone"}, returned_doc_ids=["gone-doc"]),
                        ToolCallRecord(
                            tool="read",
                            arguments={"doc_id": "mini-knee-surgery-recovery", "start_line": 2, "n_lines": 2},
                            returned_doc_ids=["mini-knee-surgery-recovery"],
                        ),
                    ],
                ),
                "test",
            ),
        ]
    )
    retriever = Retriever(mini_store.driver, encoder)
    cards = build_raw_turn_cards(mini_store)
    links = build_document_links(mini_store, retriever)
    again_cards = build_raw_turn_cards(mini_store)
    again_links = build_document_links(mini_store, retriever)
    yield {"cards": cards, "links": links, "again_cards": again_cards, "again_links": again_links, "r": retriever}
    retriever.close()


def _links(driver, memory_id: str) -> list[tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    with driver.session() as session:
        rows = session.run(
            "MATCH (:Memory {id: $id})-[l:LINKS_TO]->(d:Document) RETURN d.id AS d, l.kind AS kind, l.rank AS rank",
            id=memory_id,
        )
        return sorted(((r["kind"], r["d"], r["rank"]) for r in rows), key=lambda x: (x[0] != "neighbor", x[2]))


def test_one_verbatim_card_per_user_turn_and_rebuilding_adds_nothing(built, mini_store) -> None:  # type: ignore[no-untyped-def]
    assert built["cards"] == {"cards_added": 7, "turns_skipped_empty": 0}  # 4 sam + 2 ravi + 1 ghost
    assert built["again_cards"]["cards_added"] == 0
    assert built["again_links"]["cards_linked"] == 0 and built["again_links"]["cards_unchanged"] == 0
    with mini_store.driver.session() as session:
        rows = list(
            session.run(
                "MATCH (:Profile {id: 'mini-p-sam'})-[:HAS_MEMORY]->(m:Memory {system: 'raw_turns'})"
                "-[:DERIVED_FROM]->(t:Turn) RETURN m.id AS m, m.text AS text, t.id AS t, t.text AS turn_text"
            )
        )
    assert sorted(r["t"] for r in rows) == SAM_USER_TURNS
    assert all(r["m"] == f"raw_turns:{r['t']}" and r["text"] == r["turn_text"] for r in rows)


def test_links_are_unexposed_neighbours_then_history_reads(built, mini_store) -> None:  # type: ignore[no-untyped-def]
    links = _links(mini_store.driver, "raw_turns:mini-s-1-t0")
    neighbours = [(d, rank) for kind, d, rank in links if kind == "neighbor"]
    reads = [(d, rank) for kind, d, rank in links if kind == "history_read"]
    # Every document never exposed to sam is a neighbour (only 5 exist, fewer than 20), ranked 1..5.
    assert {d for d, _ in neighbours} == ALL_DOCS - SAM_EXPOSED
    assert [rank for _, rank in neighbours] == [1, 2, 3, 4, 5]
    # The assistant turn answering s-1-t0 read the tattoo leaflet.
    assert reads == [("mini-tattoo-aftercare", 1)]
    # s-1-t2 was answered without a read; s-2-t2 was answered by reading the prescriptions leaflet.
    assert [d for kind, d, _ in _links(mini_store.driver, "raw_turns:mini-s-1-t2") if kind == "history_read"] == []
    assert [d for kind, d, _ in _links(mini_store.driver, "raw_turns:mini-s-2-t2") if kind == "history_read"] == [
        "mini-repeat-prescriptions"
    ]


def test_unresolvable_history_read_gives_no_link_and_is_counted(built, mini_store) -> None:  # type: ignore[no-untyped-def]
    assert built["links"]["unresolved_history_reads"] == 1
    with mini_store.driver.session() as session:
        record = session.run(
            "MATCH (m:Memory {id: 'raw_turns:ghost-t0'}) RETURN m.unresolved_history_reads AS n, m.link_builder AS b"
        ).single()
    assert record["n"] == 1 and record["b"] == LINK_BUILDER
    links = _links(mini_store.driver, "raw_turns:ghost-t0")
    assert [d for kind, d, _ in links if kind == "history_read"] == ["mini-knee-surgery-recovery"]
    # Nothing is exposed in the ghost's history (its turns have tool calls but no exposure events).
    assert len([1 for kind, _, _ in links if kind == "neighbor"]) == 10


def test_memkb_returns_memories_states_note_and_fused_documents(built) -> None:  # type: ignore[no-untyped-def]
    r: Retriever = built["r"]
    question = "Is the flu jab something I should get this autumn?"
    result = r.search("MEMKB_RAW_TURNS", question, profile_id="mini-p-sam", k=5)
    assert len(result.documents) == 5 and len(result.memories) == 4
    assert result.states == [] and any("no state summary" in n for n in result.notes)
    assert any("memory_linked" in h.channel_ranks for h in result.documents)
    asthma = next(m for m in result.memories if m.memory_id == "raw_turns:mini-s-2-t0")
    assert asthma.source_turn_ids == ["mini-s-2-t0"] and asthma.system == "raw_turns"
    assert asthma.linked_doc_ids[-1] == "mini-asthma-inhalers"  # neighbours first, then the history read
    for hit in result.documents:
        expected = sum(1 / (60 + rank) for rank in hit.channel_ranks.values())
        assert hit.score == pytest.approx(expected)


def test_memory_linked_channel_is_round_robin_over_ranked_cards(built) -> None:  # type: ignore[no-untyped-def]
    r: Retriever = built["r"]
    query = "Can I order my inhaler and allergy tablets online?"
    result = r.search("MEMKB_RAW_TURNS", query, profile_id="mini-p-sam", k=10)
    cards = r.search_memories("MEMKB_RAW_TURNS", query, profile_id="mini-p-sam", k=10).memories
    from query.round_robin import expand_round_robin

    expected = expand_round_robin([c.linked_doc_ids or _card_links(built, c.memory_id) for c in cards], 20)
    linked = sorted(
        (h for h in result.documents if "memory_linked" in h.channel_ranks),
        key=lambda h: h.channel_ranks["memory_linked"],
    )
    assert [h.doc_id for h in linked] == expected[: len(linked)]
    assert [h.channel_ranks["memory_linked"] for h in linked] == list(range(1, len(linked) + 1))


def _card_links(built, memory_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    links = _links(built["r"].driver, memory_id)
    return [d for _, d, _ in links]


def test_ablations_drop_links_or_states(built) -> None:  # type: ignore[no-untyped-def]
    r: Retriever = built["r"]
    no_links = r.search(NO_LINKS_RAW, "flu jab", profile_id="mini-p-sam", k=5)
    assert all("memory_linked" not in h.channel_ranks for h in no_links.documents)
    assert all(m.linked_doc_ids == [] for m in no_links.memories) and len(no_links.memories) == 4
    no_state = r.search(NO_STATE_RAW, "flu jab", profile_id="mini-p-sam", k=5)
    assert not any("state summary" in n for n in no_state.notes)
    raw = r.search("RAW_TURNS", "asthma inhaler", profile_id="mini-p-sam", k=2)
    assert raw.documents == [] and raw.memories[0].memory_id == "raw_turns:mini-s-2-t0"
    assert set(raw.memories[0].channel_ranks) == {"semantic", "keyword"}


def test_history_cutoff_hides_later_cards(built) -> None:  # type: ignore[no-untyped-def]
    r: Retriever = built["r"]
    result = r.search("RAW_TURNS", "asthma inhaler", profile_id="mini-p-sam", k=10, before_turn_id="mini-s-1-t3")
    assert {m.memory_id for m in result.memories} == {"raw_turns:mini-s-1-t0", "raw_turns:mini-s-1-t2"}
    assert any("2 of 4 memory cards" in n for n in result.notes)
    inclusive = r.search("RAW_TURNS", "asthma", profile_id="mini-p-sam", k=10, before_turn_id="mini-s-2-t0")
    assert "raw_turns:mini-s-2-t0" in {m.memory_id for m in inclusive.memories}


def test_every_returned_id_resolves_in_the_graph(built, mini_store) -> None:  # type: ignore[no-untyped-def]
    r: Retriever = built["r"]
    for recipe in ("HYBRID", "SEMANTIC", "KEYWORD", "MEMKB_RAW_TURNS", NO_STATE_RAW, NO_LINKS_RAW, "RAW_TURNS"):
        result = r.search(recipe, "asthma and allergy tablets", profile_id="mini-p-sam", k=10)
        with mini_store.driver.session() as session:
            for hit in result.documents:
                row = session.run(
                    "MATCH (d:Document {id: $d})-[:HAS_CHUNK]->(c:Chunk {id: $c}) RETURN d.n_lines AS n, c.text AS t",
                    d=hit.doc_id,
                    c=hit.chunk_id,
                ).single()
                assert row is not None and hit.end_line <= row["n"] and row["t"] == hit.snippet
            for mem in result.memories:
                turns = session.run(
                    "MATCH (:Profile {id: 'mini-p-sam'})-[:HAS_MEMORY]->(m:Memory {id: $m})-[:DERIVED_FROM]->(t:Turn)"
                    " RETURN collect(t.id) AS ids",
                    m=mem.memory_id,
                ).single()["ids"]
                assert sorted(turns) == sorted(mem.source_turn_ids) and turns
                for doc_id in mem.linked_doc_ids:
                    assert session.run("MATCH (d:Document {id: $d}) RETURN d", d=doc_id).single() is not None


def test_states_are_returned_and_respect_the_cutoff(built, mini_store) -> None:  # type: ignore[no-untyped-def]
    mini_store.append(
        [
            NewEvent(
                StateSummarized(
                    profile_id="mini-p-ravi",
                    summary_id="ravi-sum-1",
                    system="memkb",
                    states=[
                        StateSpec(
                            state_id="ravi-st-1", text="Knee replaced on 24 Feb", source_turn_ids=["mini-s-3-t0"]
                        ),
                        StateSpec(state_id="ravi-st-2", text="Keen to exercise", source_turn_ids=["mini-s-3-t2"]),
                    ],
                ),
                "test",
            )
        ]
    )
    r: Retriever = built["r"]
    result = r.search("MEMKB_RAW_TURNS", "strength class", profile_id="mini-p-ravi", k=3)
    assert [s.state_id for s in result.states] == ["ravi-st-1", "ravi-st-2"]
    assert result.states[0].source_turn_ids == ["mini-s-3-t0"]
    cut = r.search("MEMKB_RAW_TURNS", "strength class", profile_id="mini-p-ravi", k=3, before_turn_id="mini-s-3-t1")
    assert [s.state_id for s in cut.states] == ["ravi-st-1"]
    assert any("after the history cut-off" in n for n in cut.notes)
    assert r.search(NO_STATE_RAW, "strength class", profile_id="mini-p-ravi", k=3).states == []


def test_linked_document_without_chunks_is_a_clear_error(built, mini_store) -> None:  # type: ignore[no-untyped-def]
    from graph.events import DocumentIngested, MemoryLinked, MemoryLinkSpec
    from query.errors import DocumentNotChunkedError

    # A document whose chunking never happened (an interrupted ingest), linked to the ghost's only card.
    mini_store.append(
        [
            NewEvent(DocumentIngested(doc_id="unchunked-doc", title="Half ingested", text="one line"), "test"),
            NewEvent(
                MemoryLinked(
                    memory_id="raw_turns:ghost-t0",
                    builder=LINK_BUILDER,
                    links=[MemoryLinkSpec(doc_id="unchunked-doc", kind="neighbor", rank=1)],
                ),
                "test",
            ),
        ]
    )
    r: Retriever = built["r"]
    with pytest.raises(DocumentNotChunkedError, match="unchunked-doc"):
        r.search("MEMKB_RAW_TURNS", "knee pain", profile_id="ghost-p", k=5)
    assert r.read("unchunked-doc").lines == ["one line"]  # the text itself is still readable
