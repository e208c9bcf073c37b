"""Typed errors of the API. Their messages are shown to clients, so they name what was wrong and what to do,
and never carry internals (no Cypher, no stack trace, no server paths)."""

from __future__ import annotations

from graph.errors import ColabenchError


class ApiError(ColabenchError):
    """An expected failure whose message is safe to show; `code` goes into the GraphQL error extensions."""

    code = "BAD_REQUEST"
    http_status = 400


class NotFoundError(ApiError):
    """The requested id does not exist in the graph."""

    code = "NOT_FOUND"
    http_status = 404


class BadInputError(ApiError):
    """An argument is out of range or malformed."""

    code = "BAD_INPUT"


class AmbiguousIdError(ApiError):
    """An id names nodes of several labels; the caller must say which label it means."""

    code = "AMBIGUOUS_ID"


class MutationsDisabledError(ApiError):
    """No API token is configured, so nothing can be written through the API."""

    code = "MUTATIONS_DISABLED"
    http_status = 403


class AuthRequiredError(ApiError):
    """The request did not carry the configured bearer token."""

    code = "UNAUTHENTICATED"
    http_status = 401


class HiddenFieldError(ApiError):
    """A gold field (e.g. a reference answer) was asked for but this request may not see it."""

    code = "FORBIDDEN_FIELD"
    http_status = 403


class ConflictError(ApiError):
    """The request would redefine something that already exists with different content."""

    code = "CONFLICT"
    http_status = 409


class ServiceUnavailableError(ApiError):
    """A dependency (Neo4j, the retrieval layer) is not available right now."""

    code = "UNAVAILABLE"
    http_status = 503
