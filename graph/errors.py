"""Typed errors of the graph room, and `ColabenchError`, the root of every error colabench expects.
Messages say what was wrong, where, and what to do."""

from __future__ import annotations


class ColabenchError(Exception):
    """Root of every expected failure (bad input, an unknown id, a missing prerequisite, a service that is not
    reachable). The CLI shows these as one message and the API maps them by type; any other exception is a bug
    and keeps its traceback. Each room has its own subclasses (GraphError, InputError, QueryError, LLMError,
    MemorySystemError, ApiError, ...).

    `carries_gold`: the message may hold gold (a judge's endpoint answering with its request, the reference
    answer, in an error body): the debug log keeps the traceback without the message (cli/debug_log.py)."""

    @property
    def carries_gold(self) -> bool:
        return False


class UsageError(ColabenchError, ValueError):
    """A command or function was asked for something that cannot be done as asked: an unknown run or dataset,
    conflicting options, a prerequisite not met. The message says what to do instead."""


class BadInputError(UsageError):
    """The command line asked for something that is not there or cannot be: an unknown method, run, batch or
    dataset, an option value out of its range, options that exclude each other. Commands exit 2 (bad input)."""


class GraphError(ColabenchError):
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


class PluginLoadError(ColabenchError):
    """A module named in COLABENCH_PLUGINS could not be imported (graph.plugins.load_plugins)."""
