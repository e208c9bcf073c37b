"""Errors of the synthesis pipeline (all under the project's root error, shown without a traceback)."""

from __future__ import annotations

from graph.errors import ColabenchError


class SynthesisError(ColabenchError):
    """A synthesis cannot go on (unknown KB source or profile, settings that differ from the recorded ones)."""


class UnknownReferenceError(SynthesisError, ValueError):
    """A KB source, document or profile id given by the user does not resolve in the graph."""
