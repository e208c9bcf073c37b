"""Synthesis stage II against the fake endpoint: Simulator and Assistant sessions become turns with checked
disclosures and real exposures, each role's requests respect its information boundary, a rerun appends
nothing, and a Simulator that stays invalid closes its topic as rejected with nothing of the session written."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import SAMPLE_BUNDLE, _load_bundle
from tests.fake_openai.synthesis_script import SynthesisPolicy
from tests.synthesis_support import synth_context

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

DATASET = "syn-dlg"


@pytest.fixture(scope="module")
def store(driver, encoder):  # type: ignore[no-untyped-def]
    return _load_bundle(driver, encoder, SAMPLE_BUNDLE)


def _rows(store: Any, cypher: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [r.data() for r in session.run(cypher, **params)]


def _events(store: Any, type_: str, **where: Any) -> list[dict[str, Any]]:
    rows = _rows(
        store,
        "MATCH (e:Event {type: $t}) RETURN e.payload AS p, e.seq AS seq, e.actor AS actor ORDER BY e.seq",
        t=type_,
    )
    out = [{**json.loads(r["p"]), "_seq": r["seq"], "_actor": r["actor"]} for r in rows]
    return [e for e in out if all(e.get(k) == v for k, v in where.items())]


@pytest.fixture(scope="module")
def synthesized(store, tmp_path_factory):  # type: ignore[no-untyped-def]
    """Stage I (2 profiles x 2 topics) then stage II on one policy: the checker never confirms facts *-f2, and
    the Simulator of one topic turns invalid at its second message (after a full user/assistant exchange)."""
    from agents.synthesis import stage_dialogue, stage_profiles
    from agents.synthesis.pipeline import start

    policy = SynthesisPolicy(deny_fact_suffixes=["-f2"])
    cache = tmp_path_factory.mktemp("synth-dialogue") / "cache.sqlite"
    with synth_context(
        store, policy, cache, concurrency=2, dataset=DATASET, profiles=2, topics_per_profile=2, max_user_turns=2
    ) as (ctx, _):
        start(ctx)
        assert stage_profiles.run(ctx).outcomes["accepted"] == 2
        topics = _rows(
            store,
            "MATCH (p:Profile {dataset: $d})-[:HAS_TOPIC]->(t:Topic) "
            "OPTIONAL MATCH (t)-[:CONCERNS]->(f:Fact) "
            "RETURN t.id AS id, t.title AS title, p.id AS p, collect(f.id) AS facts ORDER BY t.id",
            d=DATASET,
        )
        bad = topics[-1]
        policy.options["invalid_simulator_topics"] = [bad["facts"]]
        report = stage_dialogue.run(ctx)
        before = len(_rows(store, "MATCH (e:Event) RETURN e.seq AS s"))
        again = stage_dialogue.run(ctx)
        after = len(_rows(store, "MATCH (e:Event) RETURN e.seq AS s"))
        facts = _rows(
            store,
            "MATCH (p:Profile {dataset: $d})-[:HAS_FACT]->(f:Fact) "
            "RETURN f.id AS id, f.text AS text, p.name AS name, p.description AS description",
            d=DATASET,
        )
        yield {
            "policy": policy,
            "report": report,
            "again": again,
            "appended_by_rerun": after - before,
            "facts": facts,
            "bad": bad,
            "ctx": ctx,
        }


def test_each_topic_becomes_one_alternating_session_with_synthetic_clock(synthesized, store) -> None:
    from agents.synthesis.stage_dialogue import topic_units

    report = synthesized["report"]
    assert report.planned == 4 and report.outcomes["accepted"] == 3 and report.outcomes["rejected"] == 1
    sessions = _rows(
        store,
        "MATCH (p:Profile {dataset: $d})-[:HAS_SESSION]->(s:Session)-[:ABOUT]->(t:Topic) "
        "RETURN p.id AS p, s.id AS s, s.ordinal AS o, s.started_at AS at, t.id AS t "
        "ORDER BY p, o",
        d=DATASET,
    )
    assert len(sessions) == 3
    # ordinals follow the seeded sampling of topics, per profile; the clock is one day per ordinal
    planned = {u.topic_id: u.ordinal for u in topic_units(synthesized["ctx"])}
    for s in sessions:
        assert s["o"] == planned[s["t"]]
        assert s["at"] == f"2026-01-{5 + s['o']:02d}T09:00:00Z"
    good = next(p for p in {s["p"] for s in sessions} if p != synthesized["bad"]["p"])
    assert [s["o"] for s in sessions if s["p"] == good] == [0, 1]
    turns = _rows(
        store,
        "MATCH (s:Session)-[:HAS_TURN]->(t:Turn) WHERE s.id IN $ids "
        "RETURN s.id AS s, t.ordinal AS o, t.role AS role, t.at AS at ORDER BY s, o",
        ids=[s["s"] for s in sessions],
    )
    for sid in {s["s"] for s in sessions}:
        mine = [t for t in turns if t["s"] == sid]
        assert [t["role"] for t in mine] == ["user", "assistant", "user", "assistant"]  # max_user_turns = 2
        assert [t["at"] for t in mine] == sorted(t["at"] for t in mine)


def test_only_confirmed_disclosures_become_fact_disclosed(synthesized, store) -> None:
    disclosed = _rows(
        store,
        "MATCH (t:Turn)-[:DISCLOSES]->(f:Fact) WHERE f.id STARTS WITH $d RETURN t.role AS role, f.id AS f",
        d=DATASET,
    )
    assert disclosed and all(r["role"] == "user" for r in disclosed)
    assert not [r for r in disclosed if r["f"].endswith("-f2")]
    drafts = _events(
        store, "SynthesisDraftRecorded", synthesis_id=f"synth-{DATASET}", stage="dialogue", outcome="accepted"
    )
    assert len(drafts) == 3
    unconfirmed = [u for d in drafts for u in d["details"]["unconfirmed"]]
    assert any(f.endswith("-f2") for u in unconfirmed for f in u["fact_ids"])
    for d in drafts:
        assert d["final"]
        assert not any(f.endswith("-f2") for f in d["details"]["disclosed_fact_ids"])


def test_assistant_requests_contain_no_fact_or_profile_text(synthesized) -> None:
    policy = synthesized["policy"]
    bodies = policy.seen("assistant") + policy.seen("plain")
    assert bodies
    for body in bodies:
        text = json.dumps(body)
        for fact in synthesized["facts"]:
            assert fact["text"] not in text and json.dumps(fact["text"])[1:-1] not in text
            assert fact["name"] not in text and json.dumps(fact["description"])[1:-1] not in text
        view = json.loads(next(m["content"] for m in body["messages"] if m["role"] == "user"))
        assert set(view) == {"dialogue"}
        assert {tool["function"]["name"] for tool in body.get("tools", [])} <= {"kb_search", "read"}


def _tool_outputs(policy: SynthesisPolicy) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(tool name, arguments, response) of every tool call whose result an Assistant request carried."""
    found: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {}
    for body in policy.seen("assistant") + policy.seen("plain"):
        calls = {c["id"]: c["function"] for m in body["messages"] if m.get("tool_calls") for c in m["tool_calls"]}
        for m in body["messages"]:
            if m["role"] == "tool":
                fn = calls[m["tool_call_id"]]
                found[m["content"] + json.dumps(fn)] = (
                    fn["name"],
                    json.loads(fn["arguments"]),
                    json.loads(m["content"]),
                )
    return list(found.values())


def test_simulator_requests_contain_no_document_text(synthesized) -> None:
    policy = synthesized["policy"]
    pieces: set[str] = set()
    for tool, _, response in _tool_outputs(policy):
        for doc in response.get("documents", []):
            pieces.update(line.strip() for line in doc["snippet"].split("\n") if len(line.strip()) >= 25)
        if tool == "read":
            pieces.update(
                line.split(": ", 1)[-1].strip()
                for line in response["text"].split("\n")
                if len(line.split(": ", 1)[-1].strip()) >= 25
            )
    assert pieces, "the assistant should have seen document text"
    sim = policy.seen("SimulatorTurn") + policy.seen("DisclosureChecks")
    assert sim
    for body in sim:
        text = json.dumps(body)
        assert not [p for p in pieces if p in text or json.dumps(p)[1:-1] in text]
        assert not [m for m in body["messages"] if m["role"] == "tool"]
    # the simulator reacted to what the assistant actually said
    follow_ups = [
        b
        for b in policy.seen("SimulatorTurn")
        if any(t["role"] == "assistant" for t in json.loads(b["messages"][1]["content"])["dialogue"])
    ]
    assert follow_ups


def test_every_exposure_is_a_real_search_result_or_read_span_in_call_order(synthesized, store) -> None:
    shown: set[tuple[Any, ...]] = set()
    for tool, args, response in _tool_outputs(synthesized["policy"]):
        if tool == "kb_search":
            for doc in response["documents"]:
                start, end = (int(x) for x in doc["lines"].split("-"))
                shown.add(("search", doc["doc_id"], start, end, args["query"], doc["rank"]))
        elif "start_line" in response:
            shown.add(("read", response["doc_id"], response["start_line"], response["end_line"], None, None))
    exposures = [e for e in _events(store, "DocumentExposed") if e["turn_id"].startswith(DATASET)]
    assert exposures and any(e["via"] == "read" for e in exposures)
    for e in exposures:
        assert (e["via"], e["doc_id"], e["start_line"], e["end_line"], e["query"], e["rank"]) in shown
        assert e["_actor"] == "synthesis:assistant"
    for read in (e for e in exposures if e["via"] == "read"):
        searched = [
            e
            for e in exposures
            if e["via"] == "search" and e["doc_id"] == read["doc_id"] and e["turn_id"] == read["turn_id"]
        ]
        assert searched and min(s["_seq"] for s in searched) < read["_seq"]
    # the turn records its calls with the bundle's tool names
    turns = [t for t in _events(store, "TurnAppended") if t["turn_id"].startswith(DATASET) and t["tool_calls"]]
    assert turns and {c["tool"] for t in turns for c in t["tool_calls"]} == {"search", "read"}


def test_rerun_appends_nothing(synthesized) -> None:
    again = synthesized["again"]
    assert again.skipped == 4 and sum(again.outcomes.values()) == 0
    assert synthesized["appended_by_rerun"] == 0


def test_invalid_simulator_reply_rejects_the_topic_and_writes_no_session(synthesized, store) -> None:
    bad = synthesized["bad"]["id"]
    drafts = _events(store, "SynthesisDraftRecorded", synthesis_id=f"synth-{DATASET}", subject=bad)
    assert [(d["outcome"], d["final"], d["role"]) for d in drafts] == [("rejected", True, "simulator")]
    assert "not facts of this profile" in drafts[0]["reasons"][0]
    assert drafts[0]["details"]["user_turns_before"] == 1  # it failed mid-session, after one exchange
    assert not _rows(store, "MATCH (s:Session {topic_id: $t}) RETURN s.id AS id", t=bad)
    assert not [t for t in _events(store, "TurnAppended") if t["session_id"].startswith(bad)]
    assert not [e for e in _events(store, "DocumentExposed") if e["turn_id"].startswith(bad)]
    # the simulator was re-asked with the problem before the topic was rejected
    facts = sorted(synthesized["bad"]["facts"])
    asked = [
        b
        for b in synthesized["policy"].seen("SimulatorTurn")
        if sorted(json.loads(b["messages"][1]["content"])["topic"]["fact_ids"]) == facts
    ]
    assert any(len(b["messages"]) > 2 for b in asked)
