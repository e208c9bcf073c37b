"""Security of the API: read-only by default, bearer-token mutations, query limits, request size, CORS, no leaks
of internals, and injection attempts that return errors or nothing (never other data)."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from api.loaders import Loaders
from graph.settings import Neo4jSettings
from tests.api_support import TOKEN, api_client, data_of, error_codes, gql

pytestmark = pytest.mark.neo4j

APPEND = 'mutation { appendTurns(session: "no-such-session", turns: [{role: "user", text: "hi"}]) { headSeq } }'


@pytest.fixture(scope="module")
def client(mini_store: Any, neo4j_settings: Any, driver: Driver, encoder: Any) -> Iterator[TestClient]:
    with api_client(neo4j_settings, driver, encoder, token=TOKEN, response_cache_entries=0) as c:
        yield c


def _counts(driver: Driver) -> tuple[int, int]:
    with driver.session() as session:
        record = session.run("MATCH (n) WITH count(n) AS n MATCH ()-[r]->() RETURN n, count(r) AS r").single()
    assert record is not None
    return int(record["n"]), int(record["r"])


def test_mutations_are_disabled_when_no_token_is_configured(
    mini_store: Any, neo4j_settings: Any, driver: Driver, encoder: Any
) -> None:
    with api_client(neo4j_settings, driver, encoder) as read_only:
        body = gql(read_only, APPEND, token=TOKEN)
        assert error_codes(body) == ["MUTATIONS_DISABLED"]
        assert "COLABENCH_API_TOKEN" in body["errors"][0]["message"]
        assert read_only.get("/readyz").json()["mutations"].startswith("disabled")


def test_mutations_need_the_configured_bearer_token(client: TestClient, driver: Driver) -> None:
    before = _counts(driver)
    assert error_codes(gql(client, APPEND)) == ["UNAUTHENTICATED"]
    assert error_codes(gql(client, APPEND, token="wrong-token-0123456789")) == ["UNAUTHENTICATED"]
    basic = client.post("/graphql", json={"query": APPEND}, headers={"Authorization": f"Basic {TOKEN}"})
    assert error_codes(basic.json()) == ["UNAUTHENTICATED"]
    # With the token the request gets past authentication and fails on its content.
    assert error_codes(gql(client, APPEND, token=TOKEN)) == ["NOT_FOUND"]
    assert _counts(driver) == before


def test_mutations_are_refused_over_get(client: TestClient) -> None:
    response = client.get("/graphql", params={"query": APPEND}, headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code in (400, 405)


def test_too_deep_queries_are_refused_before_running(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = Loaders.node

    def spy(self: Loaders, kind: str) -> Any:
        calls.append(kind)
        return original(self, kind)

    monkeypatch.setattr(Loaders, "node", spy)
    nested = "id"
    for _ in range(6):
        nested = f"requirements {{ item {{ {nested} }} }}"
    body = gql(client, f'{{ item(id: "i-mini-01") {{ {nested} }} }}')
    assert body["data"] is None
    assert "exceeds maximum operation depth" in body["errors"][0]["message"]
    assert calls == []


def test_alias_token_and_cost_limits_refuse_oversized_queries(client: TestClient) -> None:
    aliases = " ".join(f'a{i}: item(id: "i-mini-01") {{ id }}' for i in range(40))
    body = gql(client, f"{{ {aliases} }}")
    assert body["data"] is None and "aliases" in body["errors"][0]["message"].lower()
    fields = " ".join("id" for _ in range(3000))
    body = gql(client, f'{{ item(id: "i-mini-01") {{ {fields} }} }}')
    assert body["data"] is None and "token" in body["errors"][0]["message"].lower()
    costly = "{ profiles(first: 1000) { sessions(first: 1000) { turns(first: 1000) { id } } } }"
    assert error_codes(gql(client, costly)) == ["QUERY_TOO_COSTLY"]
    with_variables = "query($n: Int!) { profiles(first: $n) { sessions(first: $n) { turns(first: $n) { id } } } }"
    assert error_codes(gql(client, with_variables, {"n": 1000})) == ["QUERY_TOO_COSTLY"]
    assert data_of(gql(client, with_variables, {"n": 5}))["profiles"]
    assert error_codes(gql(client, "{ items(first: 5000) { id } }")) == ["BAD_INPUT"]


def test_request_bodies_above_the_limit_are_refused_with_413(client: TestClient) -> None:
    big = {"query": "{ profiles { id } }", "variables": {"padding": "x" * 1_200_000}}
    response = client.post("/graphql", json=big)
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "REQUEST_REFUSED"

    def chunks() -> Iterator[bytes]:
        yield b'{"query": "{ profiles { id } }", "variables": {"p": "'
        for _ in range(20):
            yield b"y" * 100_000
        yield b'"}}'

    streamed = client.post("/graphql", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413


def test_cors_is_closed_by_default_and_open_only_to_listed_origins(
    client: TestClient, mini_store: Any, neo4j_settings: Any, driver: Driver, encoder: Any
) -> None:
    preflight = {"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
    response = client.options("/graphql", headers=preflight)
    assert "access-control-allow-origin" not in response.headers
    simple = client.post("/graphql", json={"query": "{ profiles { id } }"}, headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in simple.headers
    with api_client(neo4j_settings, driver, encoder, cors_origins="https://lab.example") as open_client:
        allowed = open_client.options(
            "/graphql", headers={"Origin": "https://lab.example", "Access-Control-Request-Method": "POST"}
        )
        assert allowed.headers.get("access-control-allow-origin") == "https://lab.example"
        denied = open_client.options("/graphql", headers=preflight)
        assert "access-control-allow-origin" not in denied.headers


@pytest.mark.parametrize(
    "hostile",
    [
        "i-mini-01' OR '1'='1",
        'i-mini-01"}) MATCH (n) DETACH DELETE n //',
        "i-mini-01` RETURN 1 //",
        "*",
        ".*",
        "$id",
        "i-mini-0\\u0031",
    ],
)
def test_hostile_ids_return_nothing_and_change_nothing(client: TestClient, driver: Driver, hostile: str) -> None:
    before = _counts(driver)
    query = """query($id: ID!) { item(id: $id) { id } document(id: $id) { id } profile(id: $id) { id }
        memory(id: $id) { id } turn(id: $id) { id } }"""
    data = data_of(gql(client, query, {"id": hostile}))
    assert data == {"item": None, "document": None, "profile": None, "memory": None, "turn": None}
    body = gql(client, "query($id: ID!) { neighborhood(id: $id) { nodes { id } } }", {"id": hostile})
    assert error_codes(body) == ["NOT_FOUND"]
    assert _counts(driver) == before


@pytest.mark.parametrize(
    ("hostile", "plain"),
    [
        ("*:*", ""),
        ("/.*/", ""),
        ("\\", ""),
        ("id:*", "id"),
        ("question:blood OR *", "question blood or"),
        ("blood~ AND (", "blood and"),
        ('"tattoo', "tattoo"),
    ],
)
def test_lucene_syntax_in_node_search_has_no_effect_beyond_its_words(
    client: TestClient, hostile: str, plain: str
) -> None:
    query = "query($t: String!) { findNodes(text: $t, limit: 50) { id matched } }"
    hits = data_of(gql(client, query, {"t": hostile}))["findNodes"]
    text_hits = [h["id"] for h in hits if h["matched"] == "text"]
    if not plain:
        assert text_hits == []  # a match-all query would have returned up to 50 nodes
        return
    expected = [h["id"] for h in data_of(gql(client, query, {"t": plain}))["findNodes"] if h["matched"] == "text"]
    assert text_hits == expected


def test_retrieval_queries_with_lucene_or_cypher_syntax_do_not_fail_or_leak(client: TestClient) -> None:
    for text in ['*:* OR title:"x"', "') MATCH (n) RETURN n //", "blood AND (tattoo"]:
        search = 'query($q: String!) { search(query: $q, recipe: "KEYWORD", k: 3) { documents { docId } } }'
        body = gql(client, search, {"q": text})
        assert "errors" not in body or error_codes(body) == ["BAD_INPUT"], body
        assert "MATCH" not in str(body.get("errors"))


def test_unexpected_errors_are_masked_and_logged_with_a_request_id(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(self: Loaders, kind: str) -> Any:
        raise RuntimeError("Neo.ClientError near MATCH (n:Secret) at /srv/colabench/api/loaders.py")

    monkeypatch.setattr(Loaders, "node", broken)
    with caplog.at_level(logging.ERROR, logger="colabench.api"):
        response = client.post(
            "/graphql", json={"query": '{ item(id: "i-mini-01") { id } }'}, headers={"X-Request-ID": "req-test-42"}
        )
    body = response.json()
    assert error_codes(body) == ["INTERNAL_SERVER_ERROR"]
    text = response.text
    assert "MATCH" not in text and "/srv" not in text and "Traceback" not in text and "Secret" not in text
    assert "req-test-42" in body["errors"][0]["message"]
    assert response.headers["x-request-id"] == "req-test-42"
    assert any(getattr(r, "request_id", None) == "req-test-42" and "Secret" in str(r.exc_info) for r in caplog.records)


def test_responses_carry_security_headers_and_reports_are_sandboxed(client: TestClient) -> None:
    page = client.get("/browser")
    assert page.status_code == 200 and "cytoscape.min.js" in page.text
    csp = page.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    reports = client.get("/reports/")
    assert reports.status_code == 200 and reports.headers["content-security-policy"].startswith("sandbox")
    assert client.get("/reports/../../etc/passwd").status_code == 404
    assert client.get("/reports/%2e%2e/%2e%2e/etc/passwd").status_code == 404


def test_introspection_can_be_switched_off(mini_store: Any, neo4j_settings: Any, driver: Driver, encoder: Any) -> None:
    with api_client(neo4j_settings, driver, encoder, introspection=False) as closed:
        body = gql(closed, "{ __schema { types { name } } }")
        assert body["data"] is None and "introspection" in body["errors"][0]["message"].lower()
        assert data_of(gql(closed, '{ item(id: "i-mini-01") { id } }'))["item"] == {"id": "i-mini-01"}


def test_readiness_reports_an_unreachable_database_without_internals(driver: Driver, encoder: Any) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    with api_client(Neo4jSettings(local_port=closed_port), driver, encoder) as down:
        assert down.get("/healthz").json()["status"] == "ok"
        ready = down.get("/readyz")
        assert ready.status_code == 503 and ready.json()["status"] == "unavailable"
        reply = down.post("/graphql", json={"query": '{ item(id: "i-mini-01") { id } }'})
        assert reply.status_code == 503 and "retry-after" in reply.headers  # failed only because Neo4j is down
        body = reply.json()
        assert error_codes(body) == ["UNAVAILABLE"]
        assert str(closed_port) not in str(body)


def test_cached_answers_are_never_shared_across_gold_visibility_or_given_for_bad_tokens(
    mini_store: Any, neo4j_settings: Any, driver: Driver, encoder: Any
) -> None:
    query = '{ item(id: "i-mini-01") { id referenceAnswer } }'
    with api_client(neo4j_settings, driver, encoder, token=TOKEN) as cached:
        with_token = [
            cached.post("/graphql", json={"query": query}, headers={"Authorization": f"Bearer {TOKEN}"})
            for _ in range(2)
        ]
        assert [r.headers["x-cache"] for r in with_token] == ["miss", "hit"]
        assert with_token[1].json()["data"]["item"]["referenceAnswer"].startswith("Not yet")
        anonymous = cached.post("/graphql", json={"query": query})
        assert error_codes(anonymous.json()) == ["FORBIDDEN_FIELD"] and anonymous.headers["x-cache"] == "miss"
        bad = cached.post("/graphql", json={"query": query}, headers={"Authorization": "Bearer not-the-token-123456"})
        assert "x-cache" not in bad.headers and error_codes(bad.json()) == ["FORBIDDEN_FIELD"]
        mutation = cached.post("/graphql", json={"query": APPEND}, headers={"Authorization": f"Bearer {TOKEN}"})
        assert "x-cache" not in mutation.headers


def test_a_token_holders_cached_answer_is_keyed_apart_even_when_the_server_reveals_gold() -> None:
    from api.response_cache import cache_key

    request = {"query": "{ pendingAdjudications(first: 5) { attemptId } }"}
    with_token = cache_key(request, gold_visible=True, authenticated=True)
    revealed_to_anyone = cache_key(request, gold_visible=True, authenticated=False)
    assert with_token is not None and revealed_to_anyone is not None and with_token != revealed_to_anyone
