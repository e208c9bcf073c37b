"""Synthesis stage III (items) and augmentation against the fake endpoint, over stage I profiles with a
hand-appended history (one session per topic: a user turn disclosing the topic's facts, an assistant turn whose
search exposed a document). Asserts on the HTTP requests each role really sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLE_BUNDLE, _load_bundle
from tests.fake_openai.synthesis_script import SynthesisPolicy
from tests.synthesis_support import synth_context

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]


def _rows(store: Any, cypher: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [r.data() for r in session.run(cypher, **params)]


def _append_history(store: Any, dataset: str) -> dict[str, Any]:
    """One session per topic of the dataset's profiles; returns what was disclosed and exposed."""
    from graph.events import (
        DocumentExposed,
        FactDisclosed,
        NewEvent,
        SessionStarted,
        ToolCallRecord,
        TurnAppended,
    )

    topics = _rows(
        store,
        "MATCH (p:Profile {dataset: $d})-[:HAS_TOPIC]->(t:Topic)-[:CONCERNS]->(f:Fact) "
        "WITH p, t, f ORDER BY f.id WITH p, t, collect(f) AS fs ORDER BY t.id "
        "RETURN p.id AS p, t.id AS t, [x IN fs | {id: x.id, text: x.text, "
        "meta: x.metadata}] AS facts",
        d=dataset,
    )
    events: list[Any] = []
    turn_texts, exposed = [], set()
    ordinals: dict[str, int] = {}
    for row in topics:
        n = ordinals.get(row["p"], 0)
        ordinals[row["p"]] = n + 1
        sid, at = f"{row['t']}-s0", f"2026-03-0{n + 1}T10:00:00+00:00"
        events.append(SessionStarted(session_id=sid, profile_id=row["p"], ordinal=n, topic_id=row["t"], started_at=at))
        user_text = "Something you should know: " + "; and ".join(f["text"] for f in row["facts"]) + "."
        turn_texts.append(user_text)
        events.append(TurnAppended(turn_id=f"{sid}-u0", session_id=sid, ordinal=0, role="user", text=user_text, at=at))
        events.extend(FactDisclosed(fact_id=f["id"], turn_id=f"{sid}-u0") for f in row["facts"])
        doc = json.loads(row["facts"][0]["meta"])["source_doc_id"]
        exposed.add(doc)
        events.append(
            TurnAppended(
                turn_id=f"{sid}-a1",
                session_id=sid,
                ordinal=1,
                role="assistant",
                text="Here is what I found.",
                at=at,
                tool_calls=[ToolCallRecord(tool="search", arguments={"query": "q"}, returned_doc_ids=[doc])],
            )
        )
        events.append(
            DocumentExposed(turn_id=f"{sid}-a1", doc_id=doc, via="search", start_line=1, end_line=5, query="q", rank=1)
        )
    store.append([NewEvent(e, "test:history") for e in events])
    facts = [f["text"] for row in topics for f in row["facts"]]
    return {"topics": [r["t"] for r in topics], "turn_texts": turn_texts, "fact_texts": facts, "exposed": exposed}


# One synthesis keeps its settings from start to end (a resume with others is refused).
CONFIG: dict[str, Any] = {
    "profiles": 1,
    "docs_per_profile": 3,
    "topics_per_profile": 2,
    "max_revisions": 1,
    "augment_per_item": 2,
}


def _world(store: Any, tmp: Path, dataset: str, **config: Any) -> dict[str, Any]:
    from agents.synthesis import stage_profiles
    from agents.synthesis.pipeline import start

    with synth_context(store, SynthesisPolicy(), tmp / "profiles.sqlite", dataset=dataset, **{**CONFIG, **config}) as (
        ctx,
        _,
    ):
        start(ctx)
        stage_profiles.run(ctx)
    return _append_history(store, dataset)


@pytest.fixture(scope="module")
def store(driver, encoder):  # type: ignore[no-untyped-def]
    return _load_bundle(driver, encoder, SAMPLE_BUNDLE)


@pytest.fixture(scope="module")
def built(store, tmp_path_factory):  # type: ignore[no-untyped-def]
    """Stage III run once on dataset syn-items (the Builder first names an exposed document)."""
    from agents.synthesis import stage_items

    tmp = tmp_path_factory.mktemp("items")
    world = _world(store, tmp, "syn-items")
    policy = SynthesisPolicy(builder_picks_exposed=True)
    with synth_context(store, policy, tmp / "cache.sqlite", dataset="syn-items", **CONFIG) as (ctx, _):
        report = stage_items.run(ctx)
    return {"world": world, "policy": policy, "report": report, "tmp": tmp}


def test_items_admit_history_dependent_items_whose_support_was_never_exposed(store, built) -> None:
    world, report = built["world"], built["report"]
    assert report.outcomes["accepted"] == len(world["topics"]) == 2
    items = _rows(
        store,
        "MATCH (i:Item {dataset: 'syn-items'})-[:SUPPORTED_BY]->(d:Document) "
        "RETURN i.id AS id, d.id AS doc, i.labels AS labels, i.batch AS batch, "
        "i.verifications AS v, i.asked_at AS asked_at ORDER BY id",
    )
    assert [i["id"] for i in items] == sorted(f"{t}-i0" for t in world["topics"])
    for item in items:
        assert item["doc"] not in world["exposed"]
        assert item["labels"] == ["history_dependent", "admitted_direct"] and item["batch"] == "initial"
        assert sorted(item["v"]) == ["final_verification:pass", "history_gate:history_dependent"]
        assert item["asked_at"] > "2026-03-02"
    # the Builder's first reply named an exposed document: the check sent it back with the reason
    repaired = [b for b in built["policy"].seen("ItemPlan") if len(b["messages"]) > 2]
    assert repaired and "already shown in the history" in repaired[0]["messages"][-1]["content"]
    reqs = _rows(
        store,
        "MATCH (i:Item {dataset: 'syn-items'})-[:HAS_REQUIREMENT]->(r:Requirement) "
        "MATCH (r)-[:STATED_IN]->(t:Turn {role: 'user'})-[:DISCLOSES]->(f:Fact)<-[:USES_FACT]-(r) "
        "MATCH (r)-[:GROUNDED_IN]->(d:Document)<-[:SUPPORTED_BY]-(i) RETURN count(DISTINCT r) AS n",
    )
    assert reqs[0]["n"] == 4


def test_blind_solver_sees_no_history_and_question_writer_no_gold(store, built) -> None:
    policy, world = built["policy"], built["world"]
    blind = [json.dumps(b) for b in policy.seen("BlindAnswer")]
    assert blind
    for body in blind:
        for text in [*world["turn_texts"], *world["fact_texts"]]:
            assert json.dumps(text)[1:-1] not in body
    gold = _rows(
        store,
        "MATCH (i:Item {dataset: 'syn-items'})-[:HAS_REQUIREMENT]->(r) "
        "RETURN collect(DISTINCT i.reference_answer) + collect(r.text) AS g",
    )[0]["g"]
    writer = [json.dumps(b) for b in policy.seen("WrittenQuestion")]
    assert writer and len(gold) == 6
    for body in writer:
        for text in gold:
            assert json.dumps(text)[1:-1] not in body
        assert "must mention" not in body and "REFERENCE" not in body


def test_items_rerun_appends_nothing(store, built) -> None:
    from agents.synthesis import stage_items

    before = _rows(store, "MATCH (e:Event) RETURN count(e) AS n")[0]["n"]
    policy = SynthesisPolicy()
    with synth_context(store, policy, built["tmp"] / "cache.sqlite", dataset="syn-items", **CONFIG) as (ctx, _):
        again = stage_items.run(ctx)
    assert again.skipped == 2 and sum(again.outcomes.values()) == 0 and not policy.requests
    assert _rows(store, "MATCH (e:Event) RETURN count(e) AS n")[0]["n"] == before


def test_item_answerable_without_history_is_rejected_and_nothing_written(store, tmp_path: Path) -> None:
    from agents.synthesis import stage_items

    _world(store, tmp_path, "syn-gate", max_revisions=0)
    policy = SynthesisPolicy(blind_copies=True)
    with synth_context(
        store, policy, tmp_path / "cache.sqlite", dataset="syn-gate", **{**CONFIG, "max_revisions": 0}
    ) as (ctx, _):
        report = stage_items.run(ctx)
    assert report.outcomes["dropped"] == 2 and not report.outcomes["accepted"]
    assert _rows(store, "MATCH (i:Item {dataset: 'syn-gate'}) RETURN count(i) AS n")[0]["n"] == 0
    drafts = _rows(
        store,
        "MATCH (d:SynthesisDraft {synthesis_id: 'synth-syn-gate', stage: 'items'}) "
        "RETURN d.role AS role, d.outcome AS o, d.final AS final, d.details AS details",
    )
    assert len(drafts) == 2
    for d in drafts:
        assert (d["role"], d["o"], d["final"]) == ("comparator", "dropped", True)
        assert json.loads(d["details"])["label"] == "answerable_without_history"
    # the verifier is never asked about an item the gate refused
    assert not policy.seen("FinalVerification")


def test_augmentation_refuses_single_condition_and_replaces_support(store, built) -> None:
    from agents.synthesis import stage_augment

    policy = SynthesisPolicy(augment_single_condition=[0])
    with synth_context(store, policy, built["tmp"] / "augment.sqlite", dataset="syn-items", **CONFIG) as (ctx, _):
        report = stage_augment.run(ctx)
    assert report.planned == 4 and report.outcomes["dropped"] == 2 and report.outcomes["accepted_replace"] == 2
    refused = [b for b in policy.seen("AugmentPlan") if len(b["messages"]) > 2]
    assert refused and "at least 2 distinct conditions" in refused[-1]["messages"][-1]["content"]
    rows = _rows(
        store,
        "MATCH (a:Item {dataset: 'syn-items', batch: 'augmented'})-[r:AUGMENTED_FROM]->(src:Item) "
        "MATCH (a)-[:SUPPORTED_BY]->(d) MATCH (src)-[:SUPPORTED_BY]->(sd) "
        "RETURN a.id AS id, r.direction AS dir, d.id AS doc, sd.id AS src_doc, "
        "a.verifications AS v, COUNT { (a)-[:HAS_REQUIREMENT]->() } AS n_req",
    )
    assert sorted(r["id"] for r in rows) == sorted(f"{t}-i0-a1" for t in built["world"]["topics"])
    for r in rows:
        assert r["dir"] == "replace" and r["doc"] != r["src_doc"] and r["doc"] not in built["world"]["exposed"]
        assert r["n_req"] >= 2 and sorted(r["v"]) == ["final_verification:pass", "history_gate:history_dependent"]
    dropped = _rows(
        store,
        "MATCH (d:SynthesisDraft {synthesis_id: 'synth-syn-items', stage: 'augment', "
        "outcome: 'dropped'}) RETURN d.subject AS s ORDER BY s",
    )
    assert [d["s"] for d in dropped] == sorted(f"{t}-i0-a0" for t in built["world"]["topics"])
    assert _rows(store, "MATCH (i:Item) WHERE i.id ENDS WITH '-a0' RETURN count(i) AS n")[0]["n"] == 0


def test_blind_solver_reads_the_whole_support_document_as_the_agents_read_tool_returns_it(store, built) -> None:
    from agents.tools.execution import ToolScope, execute_tool
    from query.retriever import Retriever

    retriever = Retriever(store.driver, store.encoder)
    views = [json.loads(b["messages"][-1]["content"]) for b in built["policy"].seen("BlindAnswer")]
    assert views
    for view in views:
        support = _rows(
            store, "MATCH (d:Document {title: $t}) RETURN d.id AS id, d.n_lines AS n", t=view["document_title"]
        )[0]
        pages, expect = view["pages"], 1
        for page in pages:  # each page is what the agent's Read returns from the line after the previous page
            assert page["start_line"] == expect and page["end_line"] - page["start_line"] < 100
            args = json.dumps({"doc_id": support["id"], "start_line": expect})
            got = execute_tool(retriever, "read", args, recipe="HYBRID", scope=ToolScope(profile_id="blind"))
            assert json.loads(got.response)["text"] == page["text"]
            expect = page["end_line"] + 1
        assert view["document_lines"] == support["n"]
        assert view["whole_document_read"] == (expect > support["n"])


def test_a_document_longer_than_the_read_budget_is_read_in_pages_and_marked_not_whole(store) -> None:
    from agents.synthesis.reading import read_as_agent
    from agents.synthesis.state import DocText
    from query.retriever import Retriever

    row = _rows(store, "MATCH (d:Document) RETURN d.id AS id, d.title AS t, d.text AS text ORDER BY d.n_lines DESC")[0]
    doc = DocText(row["id"], row["t"], tuple(row["text"].split("\n")))
    assert len(doc.lines) > 250
    retriever = Retriever(store.driver, store.encoder)
    whole = read_as_agent(retriever, doc, max_reads=50)
    assert whole.whole_document and whole.pages[-1].end_line == len(doc.lines) and len(whole.pages) >= 3
    numbered = "\n".join(p.text for p in whole.pages).split("\n")
    assert numbered == [f"{n}: {line}" for n, line in enumerate(doc.lines, start=1)]
    short = read_as_agent(retriever, doc, max_reads=2)
    assert len(short.pages) == 2 and not short.whole_document and short.pages == whole.pages[:2]


def test_verifier_sees_the_text_the_history_showed_of_each_document(store, built) -> None:
    views = [json.loads(b["messages"][-1]["content"]) for b in built["policy"].seen("FinalVerification")]
    assert views
    for view in views:
        seen = view["documents_seen_in_history"]
        assert {d["doc_id"] for d in seen} <= built["world"]["exposed"] and seen
        for d in seen:  # the fixture's history exposed lines 1-5 of each document
            lines = _rows(store, "MATCH (x:Document {id: $id}) RETURN x.text AS t", id=d["doc_id"])[0]["t"].split("\n")
            assert d["spans"] == [f"1-{min(5, len(lines))}"]
            shown = [f"{n}: {line}" for n, line in enumerate(lines[:5], start=1)]
            assert d["text"] == "\n".join(shown) or (d["cut"] and "\n".join(shown).startswith(d["text"]))
        assert "3,000 characters" in view["history_text_limits"]


def test_exposed_texts_merge_spans_and_keep_the_stated_limits() -> None:
    from agents.synthesis.reading import exposed_texts, merge_spans

    assert merge_spans([(5, 8), (1, 3), (4, 4), (10, 12)]) == [(1, 8), (10, 12)]
    lines = tuple(f"line {n} " + "x" * 40 for n in range(1, 101))
    out = exposed_texts({"a": ("A", lines), "b": ("B", lines)}, {"a": [(1, 60)], "b": [(1, 2)]}, per_doc=500, total=700)
    assert out[0].cut and len(out[0].text) <= 500 and out[0].text.startswith("1: line 1 ")
    assert out[1].text == "" or len(out[0].text) + len(out[1].text) <= 700
    assert out[1].cut == (len(out[1].text.split("\n")) < 2)
