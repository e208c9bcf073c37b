"""Helpers shared by the API tests (no tests here): an app client on the suite's Neo4j, a GraphQL call, direct
Cypher as the independent oracle, and a free port."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient
from neo4j import Driver

from api.app import create_app
from api.settings import ApiSettings
from graph.settings import Neo4jSettings

TOKEN = "test-token-0123456789abcdef"


@contextmanager
def api_client(neo4j_settings: Neo4jSettings, driver: Driver, encoder: Any, **settings: Any) -> Iterator[TestClient]:
    """A TestClient of a fresh app on the test Neo4j (the app opens its own async driver, as in production)."""
    app = create_app(ApiSettings(**settings), neo4j_settings, sync_driver=driver, encoder=encoder, configure_logs=False)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def gql(
    client: TestClient, query: str, variables: dict[str, Any] | None = None, token: str | None = None
) -> dict[str, Any]:
    """POST a GraphQL request; returns the JSON body (data and/or errors)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = client.post("/graphql", json={"query": query, "variables": variables or {}}, headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def data_of(body: dict[str, Any]) -> dict[str, Any]:
    """The data of a response that must not carry errors."""
    assert not body.get("errors"), body.get("errors")
    data: dict[str, Any] = body["data"]
    return data


def error_codes(body: dict[str, Any]) -> list[str]:
    return [str((e.get("extensions") or {}).get("code")) for e in body.get("errors") or []]


def cypher(driver: Driver, query: str, **params: Any) -> list[dict[str, Any]]:
    """The independent oracle: plain Cypher written in the test, not the API's query files."""
    with driver.session() as session:
        return [r.data() for r in session.run(query, **params)]
