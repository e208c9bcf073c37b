"""Typed errors of the QA line."""

from __future__ import annotations

from graph.errors import UsageError


class QaError(UsageError):
    """A QA run cannot go on as asked (bad option, no LLM, nothing to answer); the message says what to do."""
