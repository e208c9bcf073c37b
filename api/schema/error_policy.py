"""What clients see of errors: expected API errors with their message and a code; anything unexpected as an
opaque internal error with a request id (the details go to the server log, never into the response)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from graphql import GraphQLError
from strawberry.extensions import SchemaExtension

from api.errors import ApiError

log = logging.getLogger("colabench.api")


def _with_code(error: GraphQLError, message: str, code: str) -> GraphQLError:
    return GraphQLError(
        message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        extensions={"code": code},
    )


class ErrorPolicy(SchemaExtension):
    """Rewrites the errors of every result: ApiError -> its message and code; other exceptions -> masked."""

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        errors = getattr(result, "errors", None)
        if result is None or not errors:
            return
        request_id = getattr(self.execution_context.context, "request_id", "-")
        cleaned = []
        for error in errors:
            original = error.original_error
            if original is None:
                code = (error.extensions or {}).get("code", "GRAPHQL_VALIDATION_FAILED")
                cleaned.append(_with_code(error, error.message, str(code)))
            elif isinstance(original, ApiError):
                cleaned.append(_with_code(error, str(original), original.code))
            elif isinstance(original, GraphQLError):
                # a value the GraphQL layer could not coerce (NaN for an Int...): the client's input, not a bug
                cleaned.append(_with_code(error, error.message, "BAD_INPUT"))
            else:
                log.error(
                    "internal error in GraphQL resolver",
                    exc_info=(type(original), original, original.__traceback__),
                    extra={"request_id": request_id, "path": list(error.path or [])},
                )
                cleaned.append(
                    _with_code(
                        error,
                        f"internal error (request {request_id}); the server log has the details",
                        "INTERNAL_SERVER_ERROR",
                    )
                )
        result.errors = cleaned
