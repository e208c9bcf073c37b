"""The provenance queries return exactly what the graph holds (each compared with direct Cypher on the sample)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from api.graph_reader import GraphReader
from api.schema.prefetch import profile_parts
from graph.events import MemoryLinked, MemoryLinkSpec, MemoryWritten, NewEvent, StateSpec, StateSummarized
from tests.api_support import TOKEN, api_client, cypher, data_of, error_codes, gql

pytestmark = pytest.mark.neo4j

ITEM_PROVENANCE = """
query Items($first: Int!) {
  items(first: $first) {
    id question profileId
    requirements {
      id ordinal text action
      statements { id text speaker role at sessionId session { id startedAt } }
      facts { id text disclosedIn { id } }
      spans { docId docTitle startLine endLine lines text }
    }
    supportDocuments { id }
    historyDocuments { id }
  }
}
"""


@pytest.fixture(scope="module")
def graph(sample_store: Any) -> Any:
    """The sample plus one memory card (with links) and one state summary, written as events."""
    sample_store.append(
        [
            NewEvent(
                MemoryWritten(
                    system="test_cards",
                    memory_id="m-test-1",
                    profile_id="p-daniel",
                    op="ADD",
                    text="Daniel's mother has Alzheimer's disease and lives alone.",
                    source_turn_ids=["s-dan-01-t0", "s-dan-01-t2"],
                ),
                "test",
            ),
            NewEvent(
                MemoryLinked(
                    memory_id="m-test-1",
                    builder="test",
                    links=[
                        MemoryLinkSpec(doc_id="medquad-nihseniorhealth-0000003", kind="neighbor", rank=1, score=0.8),
                        MemoryLinkSpec(doc_id="medquad-nihseniorhealth-0000004", kind="history_read", rank=1),
                    ],
                ),
                "test",
            ),
            NewEvent(
                StateSummarized(
                    profile_id="p-daniel",
                    summary_id="sum-test-1",
                    system="test_states",
                    states=[
                        StateSpec(
                            state_id="st-test-1",
                            text="Grace (84) has mild Alzheimer's and lives alone two hours from Daniel.",
                            concerns="Grace",
                            time_context="since 2024",
                            unresolved=["who checks on her during the week"],
                            source_turn_ids=["s-dan-01-t0", "s-dan-01-t2"],
                        )
                    ],
                ),
                "test",
            ),
        ]
    )
    return sample_store


@pytest.fixture(scope="module")
def client(graph: Any, neo4j_settings: Any, driver: Driver, encoder: Any) -> Iterator[TestClient]:
    # The response cache is off here: these tests check what the resolvers compute. The token lets the provenance
    # comparison read gold (requirement texts); requests without it see what an anonymous client sees.
    with api_client(neo4j_settings, driver, encoder, token=TOKEN, response_cache_entries=0) as c:
        yield c


def test_item_provenance_matches_direct_cypher_for_every_sample_item(client: TestClient, driver: Driver) -> None:
    items = data_of(gql(client, ITEM_PROVENANCE, {"first": 100}, token=TOKEN))["items"]
    expected_items = cypher(driver, "MATCH (i:Item) RETURN i.id AS id ORDER BY id")
    assert [i["id"] for i in items] == [r["id"] for r in expected_items]
    assert len(items) == 28
    docs = {r["id"]: r["text"] for r in cypher(driver, "MATCH (d:Document) RETURN d.id AS id, d.text AS text")}
    n_requirements = 0
    for item in items:
        reqs = cypher(
            driver,
            "MATCH (:Item {id: $id})-[:HAS_REQUIREMENT]->(r) RETURN r.id AS id, r.text AS text ORDER BY r.ordinal",
            id=item["id"],
        )
        assert [(r["id"], r["text"]) for r in item["requirements"]] == [(r["id"], r["text"]) for r in reqs]
        for req in item["requirements"]:
            n_requirements += 1
            turns = cypher(
                driver,
                "MATCH (:Requirement {id: $id})-[:STATED_IN]->(t:Turn)<-[:HAS_TURN]-(s:Session) "
                "RETURN t.id AS id, t.text AS text, t.at AS at, s.id AS session ORDER BY t.seq",
                id=req["id"],
            )
            assert [(t["id"], t["text"], t["at"], t["session"]["id"]) for t in req["statements"]] == [
                (t["id"], t["text"], t["at"], t["session"]) for t in turns
            ]
            assert all(t["role"] == "user" for t in req["statements"])
            facts = cypher(
                driver,
                "MATCH (:Requirement {id: $id})-[:USES_FACT]->(f:Fact) OPTIONAL MATCH (t:Turn)-[:DISCLOSES]->(f) "
                "RETURN f.id AS id, collect(t.id) AS turns",
                id=req["id"],
            )
            assert {f["id"]: sorted(t["id"] for t in f["disclosedIn"]) for f in req["facts"]} == {
                f["id"]: sorted(f["turns"]) for f in facts
            }
            spans = cypher(
                driver,
                "MATCH (:Requirement {id: $id})-[g:GROUNDED_IN]->(d) RETURN d.id AS doc, g.start_line AS s, "
                "g.end_line AS e",
                id=req["id"],
            )
            assert sorted((s["docId"], s["startLine"], s["endLine"]) for s in req["spans"]) == sorted(
                (s["doc"], s["s"], s["e"]) for s in spans
            )
            for span in req["spans"]:
                lines = docs[span["docId"]].split("\n")[span["startLine"] - 1 : span["endLine"]]
                assert span["lines"] == lines and span["text"] == "\n".join(lines)
        support = cypher(driver, "MATCH (:Item {id: $id})-[:SUPPORTED_BY]->(d) RETURN d.id AS id", id=item["id"])
        assert sorted(d["id"] for d in item["supportDocuments"]) == sorted(d["id"] for d in support)
    assert n_requirements == 89


def test_item_provenance_costs_one_query_per_relation_not_per_object(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    names: list[str] = []
    original = GraphReader.rows

    async def counting(self: GraphReader, name: str, **params: Any) -> list[dict[str, Any]]:
        names.append(name)
        return await original(self, name, **params)

    monkeypatch.setattr(GraphReader, "rows", counting)
    data_of(gql(client, ITEM_PROVENANCE, {"first": 100}))
    # 28 items, 89 requirements, ~150 statements: a fixed number of queries, whatever the number of objects
    # (the items' requirement subtrees and documents come in one prefetch query).
    assert sorted(names) == ["list_items", "prefetch/items"]
    names.clear()
    partial = '{ items(first: 100) { id profile { id } } requirement(id: "i-dan-01-r0") { statements { id } } }'
    data_of(gql(client, partial))
    assert sorted(names) == ["list_items", "nodes/requirement", "prefetch/items", "rel/requirement_statements"]
    names.clear()
    data_of(gql(client, ITEM_PAGE, {"id": "i-dan-01"}, token=TOKEN))
    assert names == ["prefetch/items"]
    names.clear()
    data_of(gql(client, DOCUMENT_PAGE, {"id": "medquad-nihseniorhealth-0000003"}))
    assert names == ["prefetch/documents"]
    names.clear()
    data_of(gql(client, PROFILE_PAGE, {"id": "p-daniel"}))
    assert names == ["prefetch/profiles"]


ITEM_PAGE = """query($id: ID!) { item(id: $id) { id question labels referenceAnswer profile { id name }
  requirements { id ordinal text action statements { id text speaker at session { id startedAt } }
     facts { id text disclosedIn { id } } spans { docId docTitle startLine endLine lines text } }
  supportDocuments { id title nLines } historyDocuments { id title } } }"""
DOCUMENT_PAGE = """query($id: ID!) { document(id: $id) { id title nLines lines(startLine: 1, endLine: 40) { text }
  second: lines(startLine: 3, endLine: 5) { lines endLine truncated }
  exposures(first: 20) { turnId via startLine endLine query rank } supportsItems { id question }
  groundedRequirements { startLine endLine requirement { id text } }
  related(first: 10) { weight outgoing description document { id title } } } }"""
PROFILE_PAGE = """query($id: ID!) { profile(id: $id) { id name facts(first: 50) { id text disclosedIn { id text } }
  few: facts(first: 2) { id } sessions(first: 20) { id startedAt turns(first: 20) { id role } }
  topics { id } items { id question } } }"""
# Nested turns are prefetched for the first facts and sessions only; the page shows no more than those.
PROFILE_FIRST_ONES = """query($id: ID!) { profile(id: $id) { facts(first: 1) { id disclosedIn { id } }
  sessions(first: 2) { id turns(first: 1) { id } } } }"""


def test_item_document_and_profile_pages_answer_the_same_with_and_without_prefetch(
    client: TestClient, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    import api.schema.query as query_module

    items = [r["id"] for r in cypher(driver, "MATCH (i:Item) RETURN i.id AS id ORDER BY id")]
    documents = [
        r["id"]
        for r in cypher(
            driver,
            "MATCH (d:Document) WHERE (d)<-[:SUPPORTED_BY|USES_HISTORY_DOC|EXPOSED|GROUNDED_IN]-() "
            "RETURN DISTINCT d.id AS id ORDER BY id",
        )
    ]
    profiles = [r["id"] for r in cypher(driver, "MATCH (p:Profile) RETURN p.id AS id ORDER BY id")]
    pages = [(ITEM_PAGE, i) for i in items] + [(DOCUMENT_PAGE, d) for d in documents]
    pages += [(page, p) for page in (PROFILE_PAGE, PROFILE_FIRST_ONES) for p in profiles]
    assert len(items) == 28 and len(documents) > 50 and len(profiles) >= 3
    for token in (TOKEN, None):  # with the token every field answers; without it gold is hidden on both paths
        prefetched = [gql(client, page, {"id": i}, token=token) for page, i in pages]
        with monkeypatch.context() as patched:
            patched.setattr(query_module, "item_parts", lambda fields: set())
            patched.setattr(query_module, "document_parts", lambda fields: (set(), []))
            patched.setattr(query_module, "profile_parts", lambda fields: {**profile_parts([]), "facts_first": 0})
            loaded = [gql(client, page, {"id": i}, token=token) for page, i in pages]
        assert loaded == prefetched
        items_seen = [body for body, (page, _) in zip(prefetched, pages, strict=True) if page is ITEM_PAGE]
        if token:
            assert all(not body.get("errors") for body in prefetched)
            assert any(r["text"] for body in items_seen for r in body["data"]["item"]["requirements"])
        else:
            assert all(error_codes(body) == ["FORBIDDEN_FIELD"] for body in items_seen)


def test_reference_answer_is_hidden_without_the_token_or_the_reveal_setting(
    client: TestClient, graph: Any, neo4j_settings: Any, driver: Driver, encoder: Any
) -> None:
    body = gql(client, '{ item(id: "i-dan-01") { id referenceAnswer } }')
    assert error_codes(body) == ["FORBIDDEN_FIELD"]
    assert body["data"]["item"] == {"id": "i-dan-01", "referenceAnswer": None} or body["data"]["item"] is None
    expected = cypher(driver, "MATCH (i:Item {id: 'i-dan-01'}) RETURN i.reference_answer AS a")[0]["a"]
    with api_client(neo4j_settings, driver, encoder, reveal_reference_answers=True) as revealing:
        shown = data_of(gql(revealing, '{ item(id: "i-dan-01") { referenceAnswer } }'))
    assert shown["item"]["referenceAnswer"] == expected and expected


def test_profile_query_returns_facts_with_disclosures_history_exposures_memories_and_states(
    client: TestClient, driver: Driver
) -> None:
    query = """{ profile(id: "p-daniel") {
        id name
        facts(first: 100) { id disclosedIn { id } }
        topics { id }
        sessions(first: 50) { id ordinal turns(first: 50) { id ordinal role } }
        exposures(first: 500) { turnId docId via startLine endLine }
        memories(system: "test_cards") { id sourceTurns { id } links { docId kind rank score } }
        states { id active stale turnsAfter sourceTurns { id } }
        items { id }
    } }"""
    profile = data_of(gql(client, query))["profile"]
    facts = cypher(
        driver,
        "MATCH (:Profile {id: 'p-daniel'})-[:HAS_FACT]->(f) OPTIONAL MATCH (t:Turn)-[:DISCLOSES]->(f) "
        "RETURN f.id AS id, collect(t.id) AS turns",
    )
    assert {f["id"]: sorted(t["id"] for t in f["disclosedIn"]) for f in profile["facts"]} == {
        f["id"]: sorted(f["turns"]) for f in facts
    }
    sessions = cypher(
        driver,
        "MATCH (:Profile {id: 'p-daniel'})-[:HAS_SESSION]->(s)-[:HAS_TURN]->(t) "
        "RETURN s.id AS s, s.ordinal AS so, t.id AS t, t.ordinal AS o ORDER BY so, o",
    )
    assert [(s["id"], t["id"]) for s in profile["sessions"] for t in s["turns"]] == [(r["s"], r["t"]) for r in sessions]
    assert [s["ordinal"] for s in profile["sessions"]] == sorted({r["so"] for r in sessions})
    exposures = cypher(
        driver,
        "MATCH (:Profile {id: 'p-daniel'})-[:HAS_SESSION]->()-[:HAS_TURN]->(t)-[e:EXPOSED]->(d) "
        "RETURN t.id AS t, d.id AS d, e.via AS via, e.start_line AS s, e.end_line AS e",
    )
    assert sorted((x["turnId"], x["docId"], x["via"], x["startLine"], x["endLine"]) for x in profile["exposures"]) == (
        sorted((r["t"], r["d"], r["via"], r["s"], r["e"]) for r in exposures)
    )
    assert len(profile["exposures"]) > 0
    assert profile["memories"] == [
        {
            "id": "m-test-1",
            "sourceTurns": [{"id": "s-dan-01-t0"}, {"id": "s-dan-01-t2"}],
            "links": [
                {"docId": "medquad-nihseniorhealth-0000003", "kind": "neighbor", "rank": 1, "score": 0.8},
                {"docId": "medquad-nihseniorhealth-0000004", "kind": "history_read", "rank": 1, "score": None},
            ],
        }
    ]
    assert profile["states"] == [
        {
            "id": "st-test-1",
            "active": True,
            "stale": False,
            "turnsAfter": 0,
            "sourceTurns": [{"id": "s-dan-01-t0"}, {"id": "s-dan-01-t2"}],
        }
    ]
    items = cypher(driver, "MATCH (i:Item {profile_id: 'p-daniel'}) RETURN i.id AS id")
    assert sorted(i["id"] for i in profile["items"]) == sorted(r["id"] for r in items)


def test_document_query_reads_line_ranges_and_every_back_link(client: TestClient, driver: Driver) -> None:
    doc_id = "medquad-nihseniorhealth-0000003"
    query = """query($id: ID!) { document(id: $id) {
        id title nLines
        lines(startLine: 44, endLine: 48) { startLine endLine lines text truncated nLines }
        tail: lines(startLine: 2, endLine: 100000) { endLine truncated }
        chunks(first: 1000) { id startLine endLine }
        exposures { turnId via }
        supportsItems { id }
        groundedRequirements { startLine endLine requirement { id } }
        memoryLinks { memoryId kind }
        related { outgoing weight document { id } }
    } }"""
    body = gql(client, query, {"id": doc_id})
    assert error_codes(body) == ["BAD_INPUT"]  # 100,000 lines is above the per-request limit
    doc = data_of(gql(client, query.replace("endLine: 100000", "endLine: 1000"), {"id": doc_id}))["document"]
    text = cypher(driver, "MATCH (d:Document {id: $id}) RETURN d.text AS t", id=doc_id)[0]["t"]
    lines = text.split("\n")
    assert doc["nLines"] == len(lines)
    assert doc["lines"]["lines"] == lines[43:48] and doc["lines"]["endLine"] == 48
    assert doc["tail"] == {"endLine": len(lines), "truncated": len(lines) < 1000}
    chunks = cypher(driver, "MATCH (:Document {id: $id})-[:HAS_CHUNK]->(c) RETURN c.id AS id", id=doc_id)
    assert sorted(c["id"] for c in doc["chunks"]) == sorted(c["id"] for c in chunks)
    supports = cypher(driver, "MATCH (i:Item)-[:SUPPORTED_BY]->(:Document {id: $id}) RETURN i.id AS id", id=doc_id)
    assert sorted(i["id"] for i in doc["supportsItems"]) == sorted(r["id"] for r in supports) and supports
    grounds = cypher(
        driver,
        "MATCH (r:Requirement)-[g:GROUNDED_IN]->(:Document {id: $id}) RETURN r.id AS r, g.start_line AS s",
        id=doc_id,
    )
    assert sorted((g["requirement"]["id"], g["startLine"]) for g in doc["groundedRequirements"]) == sorted(
        (g["r"], g["s"]) for g in grounds
    )
    assert doc["memoryLinks"] == [{"memoryId": "m-test-1", "kind": "neighbor"}]
    exposed = cypher(driver, "MATCH (t:Turn)-[:EXPOSED]->(:Document {id: $id}) RETURN t.id AS t", id=doc_id)
    assert sorted(e["turnId"] for e in doc["exposures"]) == sorted(r["t"] for r in exposed)


def test_memory_and_state_queries_trace_back_to_their_turns(client: TestClient) -> None:
    query = """{
      memory(id: "m-test-1") { system text profile { id } sourceTurns { id text sessionId } links { docId } }
      state(id: "st-test-1") { concerns timeContext unresolved sourceTurns { id } }
      turn(id: "s-dan-01-t0") { memories { id } states { id } statedRequirements { id } disclosedFacts { id } }
    }"""
    data = data_of(gql(client, query))
    assert data["memory"]["system"] == "test_cards" and data["memory"]["profile"]["id"] == "p-daniel"
    assert [t["id"] for t in data["memory"]["sourceTurns"]] == ["s-dan-01-t0", "s-dan-01-t2"]
    assert data["memory"]["sourceTurns"][0]["text"].startswith("My mum Grace was diagnosed")
    assert data["state"]["unresolved"] == ["who checks on her during the week"]
    assert [t["id"] for t in data["state"]["sourceTurns"]] == ["s-dan-01-t0", "s-dan-01-t2"]
    assert data["turn"]["memories"] == [{"id": "m-test-1"}] and data["turn"]["states"] == [{"id": "st-test-1"}]
    assert {"id": "i-dan-01-r0"} in data["turn"]["statedRequirements"]
    assert {f["id"] for f in data["turn"]["disclosedFacts"]} == {"f-dan-mother-ad", "f-dan-mother-onset"}


def test_events_page_through_the_whole_log_in_order_and_redact_reference_answers(
    client: TestClient, driver: Driver
) -> None:
    query = "query($after: Int!) { events(after: $after, first: 500) { headSeq endCursor hasNextPage events { seq } } }"
    seqs: list[int] = []
    after, head = 0, None
    while True:
        page = data_of(gql(client, query, {"after": after}))["events"]
        seqs += [e["seq"] for e in page["events"]]
        head = page["headSeq"]
        if not page["hasNextPage"]:
            break
        after = page["endCursor"]
    assert seqs == list(range(1, head + 1))
    typed = data_of(gql(client, '{ events(first: 3, type: "ItemCreated") { events { type payload redactedFields } } }'))
    events = typed["events"]["events"]
    assert [e["type"] for e in events] == ["ItemCreated"] * 3
    assert all(e["payload"]["reference_answer"] is None and e["redactedFields"] == ["reference_answer"] for e in events)
    assert error_codes(gql(client, '{ events(type: "NoSuchEvent") { headSeq } }')) == ["BAD_INPUT"]


def test_neighborhood_of_an_item_is_its_relationships_and_respects_the_limit(
    client: TestClient, driver: Driver
) -> None:
    query = """query($depth: Int!, $limit: Int!) { neighborhood(id: "i-dan-01", depth: $depth, limit: $limit) {
        truncated center { id label } nodes { key id label depth properties } edges { type source target } } }"""
    view = data_of(gql(client, query, {"depth": 1, "limit": 100}))["neighborhood"]
    expected = cypher(driver, "MATCH (:Item {id: 'i-dan-01'})-[r]-(m) RETURN type(r) AS type, m.id AS id")
    assert view["center"] == {"id": "i-dan-01", "label": "Item"}
    assert sorted(n["id"] for n in view["nodes"] if n["depth"] == 1) == sorted(r["id"] for r in expected)
    assert sorted(e["type"] for e in view["edges"]) == sorted(r["type"] for r in expected)
    assert not view["truncated"]
    item = next(n for n in view["nodes"] if n["id"] == "i-dan-01")
    assert item["properties"]["reference_answer"] is None  # redacted for anonymous requests
    keys = {n["key"] for n in view["nodes"]}
    assert all(e["source"] in keys and e["target"] in keys for e in view["edges"])
    small = data_of(gql(client, query, {"depth": 2, "limit": 8}))["neighborhood"]
    assert len(small["nodes"]) == 8 and small["truncated"]
    assert error_codes(gql(client, query, {"depth": 3, "limit": 10})) == ["BAD_INPUT"]


def test_find_nodes_matches_ids_first_then_words(client: TestClient) -> None:
    hits = data_of(gql(client, '{ findNodes(text: "i-dan-01") { id label matched } }'))["findNodes"]
    assert hits[0] == {"id": "i-dan-01", "label": "Item", "matched": "id"}
    assert {h["id"] for h in hits} >= {"i-dan-01-r0", "i-dan-01-r1"}
    words = data_of(gql(client, '{ findNodes(text: "soup burned dry", limit: 5) { id matched } }'))["findNodes"]
    assert "i-dan-01" in [h["id"] for h in words] and all(h["matched"] == "text" for h in words)


def test_unknown_ids_give_null_and_empty_ids_give_an_error(client: TestClient) -> None:
    data = data_of(
        gql(client, '{ item(id: "no-such-item") { id } document(id: "nope") { id } memory(id: "x") { id } }')
    )
    assert data == {"item": None, "document": None, "memory": None}
    assert error_codes(gql(client, '{ item(id: "") { id } }')) == ["BAD_INPUT"]
    assert error_codes(gql(client, '{ neighborhood(id: "no-such-node") { truncated } }')) == ["NOT_FOUND"]


def test_search_returns_hits_whose_ids_and_lines_resolve_in_the_graph(client: TestClient, driver: Driver) -> None:
    query = """{ search(query: "signs that a person with Alzheimer's can no longer live alone",
                recipe: "HYBRID", k: 5) {
        recipe k kappa documents { docId startLine endLine snippet rank channelRanks lines { lines } document { id } }
    } }"""
    result = data_of(gql(client, query))["search"]
    assert result["recipe"] == "HYBRID" and result["k"] == 5 and len(result["documents"]) == 5
    assert [d["rank"] for d in result["documents"]] == [1, 2, 3, 4, 5]
    for hit in result["documents"]:
        assert hit["document"] == {"id": hit["docId"]}
        text = cypher(driver, "MATCH (d:Document {id: $id}) RETURN d.text AS t", id=hit["docId"])[0]["t"]
        assert hit["lines"]["lines"] == text.split("\n")[hit["startLine"] - 1 : hit["endLine"]]
    assert error_codes(gql(client, '{ search(query: "x", k: 50) { k } }')) == ["BAD_INPUT"]
    assert error_codes(gql(client, '{ search(query: "x", profile: "nobody") { k } }')) == ["NOT_FOUND"]
