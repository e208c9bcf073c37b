"""Errors of the memory systems (writing side)."""

from __future__ import annotations

from graph.errors import ColabenchError
from graph.errors import PluginLoadError as PluginLoadError  # where it was first defined (graph.plugins)


class MemorySystemError(ColabenchError, ValueError):
    """Root of the memory-system errors: each is an expected failure with a message for the user."""


class UnknownMemorySystemError(MemorySystemError):
    """No registered memory system has this name."""


class MemoryWriteError(MemorySystemError):
    """A memory system produced a write that cannot be recorded (e.g. it names a turn that does not resolve)."""


class MemoryBackendError(MemorySystemError):
    """A memory SDK failed or degraded in a way that would change what the baseline means."""


class MemoryReplyError(MemoryBackendError):
    """The `memory` endpoint's reply cannot be used (e.g. cut at max_tokens): an endpoint failure (exit 3)."""

    endpoint_failure = True


_REFUSED_STATUS = frozenset({400, 401, 403, 404, 422})


def retryable_cause(exc: BaseException) -> bool:
    """Whether running again can help, judged from the first error in `exc`'s cause chain that knows: an LLM
    error's `retryable`, or an HTTP status the endpoint refused with (a memory SDK wraps the client's error)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        flag = getattr(current, "retryable", None)
        if isinstance(flag, bool):
            return flag
        status = getattr(current, "status_code", None)
        if isinstance(status, int):
            return status not in _REFUSED_STATUS
        current = current.__cause__ or current.__context__
    return True


class SdkSwallowedFailureError(MemoryBackendError):
    """A memory SDK logged a failure and carried on while it took in a pair (agents.memory.sdk_failures): the
    pair is a failed pair, nothing of it is written, and a rerun asks the endpoint again."""

    retryable = True


class EmptyMemoryError(MemoryBackendError):
    """An LLM-built system ended a profile's build with no memory at all: every attempt that reads that memory
    would answer from nothing. Rebuilding the same pairs gives the same memory, so a plain rerun does not help.
    A partial result of the endpoint's replies: exit 3 (cli/exit_codes.py)."""

    retryable = False
    endpoint_failure = True




class AdapterConfigError(MemorySystemError):
    """A memory adapter (`http:<name>`) is not configured, or its settings are invalid."""


class AdapterError(MemoryBackendError):
    """A memory adapter's endpoint failed: a timeout, a refused connection, an HTTP error status or a reply that
    is not the protocol's (garbage). An endpoint failure (exit 3), counted as a failure of the `memory` role."""

    endpoint_failure = True
    retryable = True


class AdapterProtocolError(AdapterError):
    """The adapter speaks another version of the memory adapter protocol: running again does not help."""

    retryable = False


class AdapterTraceError(MemoryWriteError):
    """An adapter's memory names a turn that is not a turn it was sent for this user: the batch is refused and
    nothing of it is written."""
