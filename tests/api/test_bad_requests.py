"""The API never answers 500 for bad input (issue 31, item 3): body shape, encoding, nesting, lone surrogates,
NaN for an Int and odd report paths get a 4xx JSON error carrying the security headers and a request id."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api_support import api_client

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def client(
    neo4j_settings: Any, driver: Any, encoder: Any, sample_store: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    # a reports folder that exists, so odd report paths reach the path handling (a missing folder is a 404 anyway)
    reports = tmp_path_factory.mktemp("reports")
    (reports / "batch").mkdir()
    (reports / "batch" / "report.md").write_text("# report\n", encoding="utf-8")
    with api_client(neo4j_settings, driver, encoder, reports_dir=reports) as c:
        yield c


def _post(client: TestClient, body: bytes) -> Any:
    return client.post("/graphql", content=body, headers={"Content-Type": "application/json"})


def _assert_clean_4xx(response: Any) -> dict[str, Any]:
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    assert "Traceback" not in response.text
    assert response.headers.get("x-request-id")
    assert response.headers.get("x-content-type-options") == "nosniff"
    body: dict[str, Any] = response.json()
    return body


DEEP = b'{"query": "{ __typename }", "variables": {"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}"

BAD_BODIES = {
    "a JSON list": b"[1, 2, 3]",
    "a JSON string": b'"query"',
    "a JSON number": b"42",
    "JSON null": b"null",
    "invalid UTF-8": b'{"query": "{ __typename }", "x": "\xff\xfe"}',
    "truncated JSON": b'{"query": "{ __typen',
    "a query that is not a string": b'{"query": 5}',
    "variables that are not an object": b'{"query": "{ __typename }", "variables": [1]}',
    "100,000-deep variables": DEEP,
}


@pytest.mark.parametrize("name", sorted(BAD_BODIES))
def test_a_malformed_graphql_body_is_a_4xx_json_error(client: TestClient, name: str) -> None:
    _assert_clean_4xx(_post(client, BAD_BODIES[name]))


STRING_ARGUMENTS = [
    ("query($v: ID!) { item(id: $v) { id } }", "v"),
    ("query($v: ID!) { profile(id: $v) { id } }", "v"),
    ("query($v: ID!) { document(id: $v) { id } }", "v"),
    ('query($v: String!) { search(query: $v, profile: "p-daniel") { notes } }', "v"),
]


@pytest.mark.parametrize(("query", "var"), STRING_ARGUMENTS)
def test_a_lone_surrogate_in_a_string_argument_is_a_bad_input_not_a_server_error(
    client: TestClient, query: str, var: str
) -> None:
    body = '{"query": ' + json.dumps(query) + ', "variables": {"' + var + '": "abc\\ud800def"}}'
    response = _post(client, body.encode())
    assert response.status_code < 500, response.text[:300]
    assert "INTERNAL_SERVER_ERROR" not in response.text and "Traceback" not in response.text


def test_nan_for_an_int_variable_is_a_bad_input_not_a_server_error(client: TestClient) -> None:
    body = b'{"query": "query($n: Int!) { items(first: $n) { id } }", "variables": {"n": NaN}}'
    response = _post(client, body)
    assert response.status_code < 500, response.text[:300]
    assert "INTERNAL_SERVER_ERROR" not in response.text


@pytest.mark.parametrize("path", ["/reports/%00", "/reports/" + "a" * 5000, "/reports/x%00.json", "/reports/%ff"])
def test_odd_report_paths_are_404_not_500(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code in (400, 404), (response.status_code, response.text[:200])
    assert response.headers.get("x-request-id")
    assert response.headers.get("x-content-type-options") == "nosniff"


def test_an_uncaught_exception_answers_json_500_with_security_headers_and_a_request_id() -> None:
    from starlette.applications import Starlette
    from starlette.routing import Route

    from api.error_shield import ErrorShieldMiddleware
    from api.request_log import RequestLogMiddleware
    from api.security_headers import SecurityHeadersMiddleware

    def boom(request: Any) -> Any:
        raise RuntimeError("secret internals /srv/path")

    app = Starlette(routes=[Route("/boom", boom)])
    app.add_middleware(ErrorShieldMiddleware)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(RequestLogMiddleware)
    with TestClient(app, raise_server_exceptions=False) as c:
        response = c.get("/boom", headers={"X-Request-ID": "probe-1"})
    assert response.status_code == 500
    assert response.json()["errors"][0]["extensions"]["code"] == "INTERNAL_SERVER_ERROR"
    assert "probe-1" in response.json()["errors"][0]["message"]
    assert "secret" not in response.text and "Traceback" not in response.text
    assert response.headers["x-request-id"] == "probe-1"
    assert response.headers["x-content-type-options"] == "nosniff"
