"""Typed errors of the graph room. Messages say what was wrong, where, and what to do."""

from __future__ import annotations


class GraphError(Exception):
    """Base class for expected failures in the graph room (shown without a stack trace)."""


class Neo4jUnavailableError(GraphError):
    """Neo4j could not be reached."""


class Neo4jServerError(GraphError):
    """The project's local Neo4j could not be built, started or stopped."""


class SchemaMismatchError(GraphError):
    """The projection was built with a different encoder or schema version."""


class EventValidationError(GraphError):
    """An event payload does not match its model."""


class ChainBrokenError(GraphError):
    """The hash chain of the event log does not verify."""


class UnknownEventTypeError(GraphError):
    """An event type with no model or projection."""
