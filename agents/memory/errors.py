"""Errors of the memory systems (writing side)."""

from __future__ import annotations


class MemorySystemError(ValueError):
    """Root of the memory-system errors: each is an expected failure with a message for the user."""


class UnknownMemorySystemError(MemorySystemError):
    """No registered memory system has this name."""


class MemoryWriteError(MemorySystemError):
    """A memory system produced a write that cannot be recorded (e.g. it names a turn that does not resolve)."""


class MemoryBackendError(MemorySystemError):
    """A memory SDK failed or degraded in a way that would change what the baseline means."""
