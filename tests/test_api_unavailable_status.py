"""GraphQL replies that failed only because Neo4j is unreachable answer HTTP 503 with Retry-After (and the usual
JSON error body); every other GraphQL reply keeps HTTP 200. The app's driver points at a closed loopback port,
so the suite's shared Neo4j is never stopped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.graphql_router import RETRY_AFTER_S, only_unavailable
from api.settings import ApiSettings
from graph.server import free_port
from graph.settings import Neo4jSettings


@pytest.fixture(scope="module")
def down_client() -> Iterator[TestClient]:
    closed = free_port()  # nothing listens here: every Bolt connection is refused
    neo4j = Neo4jSettings(uri=f"bolt://127.0.0.1:{closed}")
    app = create_app(ApiSettings(response_cache_entries=0), neo4j, configure_logs=False)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def test_graphql_read_during_outage_is_503_with_retry_after_and_unavailable_body(down_client: TestClient) -> None:
    response = down_client.post("/graphql", json={"query": '{ document(id: "doc-1") { id } }'})
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == str(RETRY_AFTER_S)
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["data"] == {"document": None}
    codes = [e["extensions"]["code"] for e in body["errors"]]
    assert codes == ["UNAVAILABLE"]
    assert "not reachable" in body["errors"][0]["message"]


def test_readyz_is_503_during_outage(down_client: TestClient) -> None:
    assert down_client.get("/readyz").status_code == 503


def test_errors_a_client_caused_stay_http_200_during_outage(down_client: TestClient) -> None:
    response = down_client.post("/graphql", json={"query": "{ noSuchField }"})
    assert response.status_code == 200
    assert "retry-after" not in response.headers
    assert response.json()["errors"][0]["extensions"]["code"] != "UNAVAILABLE"


def test_only_unavailable_requires_every_error_to_be_unavailable() -> None:
    unavailable = {"message": "x", "extensions": {"code": "UNAVAILABLE"}}
    other = {"message": "y", "extensions": {"code": "NOT_FOUND"}}
    assert only_unavailable({"data": None, "errors": [unavailable, unavailable]})  # type: ignore[typeddict-item]
    assert not only_unavailable({"data": None, "errors": [unavailable, other]})  # type: ignore[typeddict-item]
    assert not only_unavailable({"data": {"a": 1}})
    assert not only_unavailable([{"data": None, "errors": [unavailable]}])  # type: ignore[list-item]
