"""Gold never leaves the API without the token: a probe word planted in every gold field of one item (its
reference answer, the LoCoMo-style adversarial answer and iKAT-style PTKB grades in its metadata, its
requirement's text and action, a judge's rationale, what a quality judge quoted in its details, the error text
of a judge's endpoint that echoed its request, an iKAT-style turn stating the reference answer) appears in no
response of any GraphQL query field, the
node-properties view, the node search or the request log of an anonymous request, and in all of them for the
token. Ids and structure stay public."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from graphql import GraphQLNonNull, GraphQLObjectType, GraphQLSchema, get_named_type
from neo4j import Driver

from graph import events as e
from tests.api_support import TOKEN, api_client, data_of, gql

pytestmark = pytest.mark.neo4j

PROBE = "zqxgoldprobe"
ITEM = "gold-item"
REQUIREMENT = f"{ITEM}:r0"
RUN = "gold-run"
ATTEMPT = f"{RUN}:{ITEM}"
JUDGMENT = f"{ATTEMPT}:accuracy"
QUALITY = f"{ATTEMPT}:quality:evidence_grounding"
FAILURE = f"{ATTEMPT}:judge-failure"
ANSWER_TURN = "gold-answer-turn"
LIMITS = {"max_tokens": 100_000, "max_cost": 10_000_000, "max_depth": 12, "response_cache_entries": 0}


@pytest.fixture(scope="module")
def probe_store(mini_store: Any) -> Any:
    """The `mini` bundle plus one item whose every gold field carries PROBE (ids and public texts do not)."""
    mini_store.append(
        [
            e.NewEvent(
                e.ItemCreated(
                    item_id=ITEM,
                    profile_id="mini-p-sam",
                    dataset="mini",
                    question="Which clinic opens first on Friday?",
                    reference_answer=f"The answer is {PROBE} one.",
                    support_doc_ids=["mini-blood-donation"],
                    metadata={
                        "category_name": "adversarial",
                        "adversarial_answer": f"trap {PROBE}",
                        "ptkb_rel_nist": {PROBE: 2},
                        "unresolved_evidence": ["D9:9"],
                    },
                ),
                "test",
            ),
            e.NewEvent(
                e.RequirementMapped(
                    requirement_id=REQUIREMENT,
                    item_id=ITEM,
                    ordinal=0,
                    text=f"Say {PROBE} opens first.",
                    turn_ids=["mini-s-1-t0"],
                    fact_ids=["mini-f-tattoo"],
                    spans=[e.KnowledgeSpan(doc_id="mini-blood-donation", start_line=4, end_line=4)],
                    action=f"Name {PROBE}.",
                ),
                "test",
            ),
            e.NewEvent(
                e.TurnAppended(
                    turn_id=ANSWER_TURN,
                    session_id="mini-s-1",
                    ordinal=90,
                    role="assistant",
                    text=f"Canonical response: {PROBE} opens first.",
                    metadata={e.REFERENCE_ANSWER_OF: ITEM},
                ),
                "test",
            ),
            e.NewEvent(
                e.RunStarted(
                    run_id=RUN,
                    method="HYBRID",
                    dataset="mini",
                    batch_id="gold-batch",
                    item_ids=[ITEM],
                    dataset_fingerprint="f" * 64,
                    dataset_head_seq=1,
                ),
                "test",
            ),
            e.NewEvent(e.AttemptStarted(attempt_id=ATTEMPT, run_id=RUN, item_id=ITEM), "test"),
            e.NewEvent(
                e.AnswerJudged(
                    judgment_id=JUDGMENT,
                    attempt_id=ATTEMPT,
                    kind="accuracy",
                    verdict="fail",
                    score=0.0,
                    rationale=f"The reference says {PROBE}; the answer does not.",
                    judge_model="fake-judge",
                    prompt_name="judge_accuracy",
                    prompt_version="1",
                    prompt_sha256="b" * 64,
                    details={"failed_requirement_ids": [REQUIREMENT]},
                ),
                "test",
            ),
            e.NewEvent(
                e.AnswerJudged(
                    judgment_id=QUALITY,
                    attempt_id=ATTEMPT,
                    kind="quality:evidence_grounding",
                    score=2.0,
                    rationale="Partly supported.",
                    judge_model="fake-judge",
                    prompt_name="judge_quality_evidence_grounding",
                    prompt_version="3",
                    prompt_sha256="c" * 64,
                    details={"candidate_excerpt": "the clinic", "source_evidence": f"reference: {PROBE} evidence"},
                ),
                "test",
            ),
            e.NewEvent(
                e.EndpointFailed(
                    failure_id=FAILURE,
                    run_id=RUN,
                    attempt_id=ATTEMPT,
                    role="judge",
                    stage="judge:accuracy",
                    error=f"HTTP 400: prompt too long: ## Reference answer {PROBE} echoed",
                    retryable=False,
                ),
                "test",
            ),
        ]
    )
    return mini_store


@pytest.fixture(scope="module")
def client(probe_store: Any, neo4j_settings: Any, driver: Driver, encoder: Any) -> Iterator[TestClient]:
    with api_client(neo4j_settings, driver, encoder, token=TOKEN, **LIMITS) as c:
        yield c


# Arguments of the query fields that need some: each field is asked once per argument set.
ROOT_ARGUMENTS: dict[str, list[dict[str, Any]]] = {
    "item": [{"id": ITEM}],
    "items": [{}],
    "requirement": [{"id": REQUIREMENT}],
    "profile": [{"id": "mini-p-sam"}],
    "profiles": [{}],
    "datasets": [{}],
    "fact": [{"id": "mini-f-tattoo"}],
    "session": [{"id": "mini-s-1"}],
    "turn": [{"id": "mini-s-1-t0"}, {"id": ANSWER_TURN}],
    "document": [{"id": "mini-blood-donation"}],
    "memory": [{"id": "no-such-memory"}],
    "state": [{"id": "no-such-state"}],
    "run": [{"id": RUN}],
    "runs": [{}],
    "attempt": [{"run": RUN, "item": ITEM}],
    "events": [
        *({"first": 50, "type": k} for k in ("ItemCreated", "RequirementMapped", "AnswerJudged", "EndpointFailed")),
        {"first": 500, "type": "TurnAppended"},
    ],
    "search": [{"query": "which clinic opens first", "recipe": "KEYWORD"}, {"query": "opens", "profile": "mini-p-sam"}],
    "neighborhood": [{"id": ITEM, "depth": 2, "limit": 500}, {"id": JUDGMENT}, {"id": QUALITY}, {"id": ATTEMPT}],
    "node": [{"id": n} for n in (ITEM, REQUIREMENT, JUDGMENT, QUALITY, ATTEMPT, ANSWER_TURN)],
    "findNodes": [{"text": PROBE, "limit": 50}, {"text": "gold", "limit": 50}, {"text": "opens first", "limit": 50}],
    "pendingAdjudications": [{"runs": [RUN], "includeResolved": True}],
}


def _selection(schema: GraphQLSchema, type_: Any, depth: int) -> str:
    """Every field of `type_` that needs no argument, objects down to `depth` levels."""
    named = get_named_type(type_)
    if not isinstance(named, GraphQLObjectType):
        return ""
    parts = []
    for name, field in named.fields.items():
        if any(isinstance(arg.type, GraphQLNonNull) and arg.default_value is None for arg in field.args.values()):
            continue
        target = get_named_type(field.type)
        if isinstance(target, GraphQLObjectType):
            if depth == 0:
                continue
            inner = _selection(schema, field.type, depth - 1)
            if inner:
                parts.append(f"{name} {{ {inner} }}")
        else:
            parts.append(name)
    return " ".join(parts)


def _queries() -> list[str]:
    from api.schema import schema

    graphql_schema: GraphQLSchema = schema._schema
    root = graphql_schema.query_type
    assert root is not None
    assert set(root.fields) == set(ROOT_ARGUMENTS), "a new query field needs arguments in ROOT_ARGUMENTS"
    queries = []
    for name, field in root.fields.items():
        body = _selection(graphql_schema, field.type, 3)
        for arguments in ROOT_ARGUMENTS[name]:
            args = ", ".join(f"{k}: {json.dumps(v)}" for k, v in arguments.items())
            head = f"{name}({args})" if args else name
            queries.append(f"{{ {head} {{ {body} }} }}" if body else f"{{ {head} }}")
    return queries


def test_no_query_field_of_the_schema_shows_gold_without_the_token(client: TestClient) -> None:
    anonymous_bodies = []
    for query in _queries():
        for headers in ({}, {"Authorization": "Bearer not-the-token-0123456789"}):
            response = client.post("/graphql", json={"query": query}, headers=headers)
            assert response.status_code == 200, response.text
            assert PROBE not in response.text.lower(), query
            anonymous_bodies.append(response.json())
    # The walk did reach the planted records (so the probe's absence means something).
    text = json.dumps(anonymous_bodies)
    for reached in (ITEM, REQUIREMENT, JUDGMENT, QUALITY, FAILURE, ANSWER_TURN, "RequirementMapped", "AnswerJudged",
                    "EndpointFailed", "EndpointFailure", "mini-s-1-t0"):
        assert reached in text, reached


def test_with_the_token_every_gold_field_shows(client: TestClient) -> None:
    shown = " ".join(client.post("/graphql", json={"query": q}, headers={"Authorization": f"Bearer {TOKEN}"}).text
                     for q in _queries())
    for planted in (
        f"The answer is {PROBE} one.",
        f"trap {PROBE}",
        f"Say {PROBE} opens first.",
        f"Name {PROBE}.",
        f"The reference says {PROBE}; the answer does not.",
        f"reference: {PROBE} evidence",
        f"## Reference answer {PROBE} echoed",
        f"Canonical response: {PROBE} opens first.",
    ):
        assert planted in shown, planted


def test_requirements_and_judgments_keep_their_ids_and_structure_and_list_what_was_hidden(client: TestClient) -> None:
    query = """{ requirement(id: "gold-item:r0") { id ordinal text action redactedFields
                   statements { id } facts { id } spans { docId startLine endLine } }
                 attempt(run: "gold-run", item: "gold-item") { judgments { id verdict rationale redactedFields } } }"""
    data = data_of(gql(client, query))
    assert data["requirement"] == {
        "id": REQUIREMENT,
        "ordinal": 0,
        "text": None,
        "action": None,
        "redactedFields": ["text", "action"],
        "statements": [{"id": "mini-s-1-t0"}],
        "facts": [{"id": "mini-f-tattoo"}],
        "spans": [{"docId": "mini-blood-donation", "startLine": 4, "endLine": 4}],
    }
    assert sorted(data["attempt"]["judgments"], key=lambda j: j["id"]) == [
        {"id": JUDGMENT, "verdict": "fail", "rationale": None, "redactedFields": ["rationale", "details"]},
        {"id": QUALITY, "verdict": None, "rationale": None, "redactedFields": ["rationale", "details"]},
    ]
    shown = data_of(gql(client, query, token=TOKEN))
    assert shown["requirement"]["text"] == f"Say {PROBE} opens first." and shown["requirement"]["redactedFields"] == []


def test_node_properties_parse_metadata_json_and_hide_gold_inside_it(client: TestClient) -> None:
    query = 'query($id: ID!) { node(id: $id) { caption properties redactedFields } }'
    item = data_of(gql(client, query, {"id": ITEM}))["node"]
    assert item["redactedFields"] == ["reference_answer", "metadata.adversarial_answer", "metadata.ptkb_rel_nist"]
    metadata = json.loads(item["properties"]["metadata"])
    assert metadata == {
        "adversarial_answer": None,
        "category_name": "adversarial",
        "ptkb_rel_nist": None,
        "unresolved_evidence": ["D9:9"],
    }
    requirement = data_of(gql(client, query, {"id": REQUIREMENT}))["node"]
    assert requirement["caption"] == REQUIREMENT
    assert sorted(requirement["redactedFields"]) == ["action", "text", "text_chars"]
    revealed = data_of(gql(client, query, {"id": ITEM}, token=TOKEN))["node"]
    assert json.loads(revealed["properties"]["metadata"])["adversarial_answer"] == f"trap {PROBE}"
    assert revealed["redactedFields"] == []


def test_node_search_finds_requirements_by_their_words_only_with_the_token(client: TestClient) -> None:
    query = "query($t: String!) { findNodes(text: $t, limit: 50) { id caption matched } }"
    assert data_of(gql(client, query, {"t": PROBE}))["findNodes"] == []
    by_id = data_of(gql(client, query, {"t": REQUIREMENT}))["findNodes"]
    assert {"id": REQUIREMENT, "caption": REQUIREMENT, "matched": "id"} in by_id
    with_token = data_of(gql(client, query, {"t": PROBE}, token=TOKEN))["findNodes"]
    assert sorted((h["id"], h["matched"]) for h in with_token) == [(ANSWER_TURN, "text"), (REQUIREMENT, "text")]
    assert all(PROBE in h["caption"] for h in with_token)
    # the answer turn found by its id without the token is captioned with its id, not its text
    by_turn_id = data_of(gql(client, query, {"t": ANSWER_TURN}))["findNodes"]
    assert {"id": ANSWER_TURN, "caption": ANSWER_TURN, "matched": "id"} in by_turn_id


def test_request_logs_never_carry_gold_from_responses_or_variables(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    query = "query($id: ID!) { item(id: $id) { referenceAnswer requirements { text action } } }"
    with caplog.at_level(logging.DEBUG, logger="colabench.api"):
        body = gql(client, query, {"id": ITEM, "unused": PROBE}, token=TOKEN)
        gql(client, '{ node(id: "gold-item") { properties } }', token=TOKEN)
    assert PROBE in json.dumps(body)
    logged = " ".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert caplog.records and PROBE not in logged
