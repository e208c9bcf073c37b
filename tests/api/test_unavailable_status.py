"""GraphQL replies that failed only because Neo4j is unreachable answer HTTP 503 with Retry-After (and the usual
JSON error body), and so do reads Neo4j refuses with a transient error (its bound on transaction memory);
every other GraphQL reply keeps HTTP 200. The app's driver points at a closed loopback port or at a Neo4j of the
test's own, so the suite's shared Neo4j is never stopped or starved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from neo4j.exceptions import TransientError

from api.app import create_app
from api.graphql_router import RETRY_AFTER_S, only_unavailable
from api.settings import ApiSettings
from graph.connection import open_driver
from graph.server import LocalNeo4jServer, free_port
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


def test_graphql_read_refused_for_transaction_memory_is_503_with_retry_after(tmp_path: Path) -> None:
    """Neo4j's bound on transaction memory (COLABENCH_NEO4J_TX_MAX_MIB, here its minimum of 10 MiB) refuses a
    read while another transaction holds the memory: the API answers 503 UNAVAILABLE with Retry-After, a reply a
    client can retry, not an internal error."""
    settings = Neo4jSettings(local_port=free_port(), heap="512m", pagecache_mib=64, tx_max_mib=10)
    server = LocalNeo4jServer(settings, home=tmp_path / "neo4j")
    server.start(timeout_s=300)
    try:
        driver = open_driver(settings)
        app = create_app(ApiSettings(response_cache_entries=0), settings, configure_logs=False)
        with TestClient(app, raise_server_exceptions=False) as client:
            refused = None
            # a transaction that holds most of the 10 MiB (a sort whose result is not read to the end)
            for rows in (100_000, 90_000, 80_000, 70_000):
                with driver.session() as holder:
                    tx = holder.begin_transaction()
                    try:
                        held = tx.run("UNWIND range(1, $n) AS x WITH x ORDER BY x DESC RETURN x", n=rows)
                        next(iter(held))
                    except TransientError:
                        tx.close()
                        continue
                    response = client.post("/graphql", json={"query": '{ document(id: "doc-1") { id } }'})
                    tx.rollback()
                if response.status_code == 503:
                    refused = response
                    break
            assert refused is not None, "no held transaction made the server refuse the read"
            assert refused.headers["retry-after"] == str(RETRY_AFTER_S)
            errors = refused.json()["errors"]
            assert [e["extensions"]["code"] for e in errors] == ["UNAVAILABLE"]
            assert "MemoryPoolOutOfMemoryError" in errors[0]["message"]
            # once the memory is free again the same read is answered
            assert client.post("/graphql", json={"query": '{ document(id: "doc-1") { id } }'}).status_code == 200
        driver.close()
    finally:
        server.stop()
