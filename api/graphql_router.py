"""The GraphQL router of the app: strawberry's FastAPI router with one change to the HTTP status (and replies written
by orjson, several times faster than the standard library's json).

GraphQL answers HTTP 200 whatever its errors say; that stays so for every error a client caused or could fix.
A reply whose errors are all `UNAVAILABLE` (Neo4j or the retrieval layer could not be reached, nothing else went
wrong) answers HTTP 503 with a `Retry-After` header instead, with the same JSON body, so load balancers, retrying
HTTP clients and monitoring see the outage for what it is without parsing GraphQL errors.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import Response
from strawberry.fastapi import GraphQLRouter
from strawberry.http import GraphQLHTTPResponse

from api.errors import ServiceUnavailableError
from api.schema.context import ApiContext

RETRY_AFTER_S = 5


def only_unavailable(response_data: GraphQLHTTPResponse | list[GraphQLHTTPResponse]) -> bool:
    """True when the reply carries errors and every one of them has the code of ServiceUnavailableError."""
    if not isinstance(response_data, dict):
        return False  # a batch: its parts may differ, keep GraphQL's 200
    errors: list[Any] = list(response_data.get("errors") or [])
    if not errors:
        return False
    return all(
        isinstance(e, dict) and (e.get("extensions") or {}).get("code") == ServiceUnavailableError.code for e in errors
    )


class ColabenchGraphQLRouter(GraphQLRouter[ApiContext, None]):
    """GraphQLRouter whose replies failed only by an unavailable dependency answer 503 + Retry-After; replies are
    encoded by orjson. Requests are still read by the standard library, which accepts NaN and Infinity so that
    the append validation can name the field that carries one."""

    def encode_json(self, data: object) -> bytes:
        return orjson.dumps(data)

    def create_response(
        self, response_data: GraphQLHTTPResponse | list[GraphQLHTTPResponse], sub_response: Response
    ) -> Response:
        response = super().create_response(response_data, sub_response)
        if response.status_code == 200 and only_unavailable(response_data):
            response.status_code = ServiceUnavailableError.http_status
            response.headers["Retry-After"] = str(RETRY_AFTER_S)
        return response
