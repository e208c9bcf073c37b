"""Typed errors of the query room. Each message says what was wrong, where, and what to do.

They subclass ColabenchError (the CLI shows them as one clear message, see cli/context.py) and, for callers
written before that root existed, ValueError; the API maps `UnknownIdError` to not-found and every other
`QueryError` to a client error.
"""

from __future__ import annotations

from graph.errors import ColabenchError


class QueryError(ColabenchError, ValueError):
    """Base class of every expected retrieval failure (bad input or a graph that cannot answer)."""


class UnknownIdError(QueryError):
    """An id the request names is not in the graph."""


class EmptyQueryError(QueryError):
    """The query text is empty or only whitespace."""


class KOutOfRangeError(QueryError):
    """k (documents or memories to return) is outside the allowed range."""


class UnknownRecipeError(QueryError):
    """No named recipe has this name."""


class UnknownProfileError(UnknownIdError):
    """No Profile node has this id."""


class ProfileRequiredError(QueryError):
    """The recipe searches memories, which belong to a profile, but no profile id was given."""


class UnknownTurnError(UnknownIdError):
    """The history cut-off turn does not exist or belongs to another profile."""


class UnknownDocumentError(UnknownIdError):
    """No Document node has this id."""


class BadRangeError(QueryError):
    """A Read range starts before line 1 or past the end of the document, or asks for no lines."""


class DocumentNotChunkedError(QueryError):
    """A document has no chunks, so it cannot give a snippet (its ingest did not finish)."""


class EncoderMismatchError(QueryError):
    """The retriever's encoder is not the one that made the graph's vectors."""
