"""Typed errors of adjudication; ValueErrors, so the CLI shows them as one line and the API as a client error."""

from __future__ import annotations

from graph.errors import ColabenchError


class AdjudicationError(ColabenchError, ValueError):
    """A ruling or a listing could not be made; the message says what was wrong and what to do."""


class UnknownRunError(AdjudicationError):
    """No run with this id is in the graph."""


class UnknownAttemptError(AdjudicationError):
    """No attempt with this id is in the graph."""


class NoAccuracyVerdictError(AdjudicationError):
    """The attempt has no accuracy verdict of its run's judge to rule on."""


class UnknownJudgmentError(AdjudicationError):
    """The judgment named is not an accuracy judgment of the attempt."""


class NotPendingError(AdjudicationError):
    """The attempt's verdict is not pending (a pass or fail, or already adjudicated) and overruling was not asked."""
