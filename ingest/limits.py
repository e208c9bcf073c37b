"""Input limits every loader enforces (env vars, then the [ingest.limits] table of colabench.toml).

The limits keep a hostile or broken input from exhausting memory, crashing Neo4j's indexes (a property above
about 8 KB cannot be indexed) or the JSON parser (recursion), and from smuggling control characters into ids
that end up in logs, URLs and Cypher parameters. A value over a limit is a located input problem, never a
traceback.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import ClassVar

from pydantic import AliasChoices, Field
from pydantic_settings import SettingsConfigDict

from graph.config_file import TableSettings

# Unicode categories refused in ids: control characters (NUL, newlines, tabs, DEL, C1), lone surrogates and
# the line/paragraph separators some tools treat as newlines.
_REFUSED_ID_CATEGORIES = {
    "Cc": "a control character",
    "Cs": "a lone surrogate",
    # zero-width and bidirectional controls (U+200B, U+202E...): two ids that print the same must be the same id
    "Cf": "an invisible format character (zero-width or bidirectional control)",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}

# Ids an adapter derives from a source id (e.g. `<item_id>-r3`, `locomo:<sample>:<turn>`) may be this much longer.
DERIVED_ID_SLACK = 100


class InputLimits(TableSettings):
    """The limits of one process (see `current_limits`)."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    max_line_bytes: int = Field(
        default=8 * 1024 * 1024,
        ge=1024,
        validation_alias=AliasChoices("COLABENCH_MAX_LINE_BYTES", "max_line_bytes"),
        description="longest JSONL line (bytes, after decompression)",
    )
    max_text_chars: int = Field(
        default=100_000,
        ge=100,
        validation_alias=AliasChoices("COLABENCH_MAX_TEXT_CHARS", "max_text_chars"),
        description="longest text of a turn, fact, question, requirement, answer or other non-document field",
    )
    max_document_chars: int = Field(
        default=2_000_000,
        ge=1000,
        validation_alias=AliasChoices("COLABENCH_MAX_DOCUMENT_CHARS", "max_document_chars"),
        description="longest document text, and longest string anywhere in an input",
    )
    max_id_chars: int = Field(
        default=256,
        ge=8,
        le=1000,
        validation_alias=AliasChoices("COLABENCH_MAX_ID_CHARS", "max_id_chars"),
        description="longest id (Neo4j cannot index property values above about 8 KB)",
    )
    max_json_depth: int = Field(
        default=64,
        ge=4,
        le=800,
        validation_alias=AliasChoices("COLABENCH_MAX_JSON_DEPTH", "max_json_depth"),
        description="deepest nesting of JSON arrays and objects",
    )
    max_archive_members: int = Field(
        default=10_000,
        ge=1,
        validation_alias=AliasChoices("COLABENCH_MAX_ARCHIVE_MEMBERS", "max_archive_members"),
        description="most members of a bundle .tar.gz",
    )
    max_archive_bytes: int = Field(
        default=4 * 1024**3,
        ge=1024,
        validation_alias=AliasChoices("COLABENCH_MAX_ARCHIVE_BYTES", "max_archive_bytes"),
        description="largest unpacked size of a bundle .tar.gz",
    )

    config_table: ClassVar[str] = "ingest.limits"


_current: InputLimits | None = None


def current_limits() -> InputLimits:
    """The limits in force, read once per process from the environment and the config file."""
    global _current
    if _current is None:
        _current = InputLimits()
    return _current


@contextmanager
def limits_in_force(limits: InputLimits) -> Iterator[InputLimits]:
    """Use `limits` inside the block (tests and the fuzzing drill use small ones)."""
    global _current
    before = _current
    _current = limits
    try:
        yield limits
    finally:
        _current = before


def identifier_problem(value: str, max_chars: int | None = None) -> str | None:
    """Why `value` cannot be an id (None when it can): empty, too long, or holding a refused character."""
    limit = max_chars if max_chars is not None else current_limits().max_id_chars
    if not value:
        return "an id must not be empty"
    if len(value) > limit:
        return f"an id of {len(value):,} characters is longer than the limit of {limit:,} (max_id_chars)"
    if value != value.strip():
        return "an id must not start or end with white space"
    for index, char in enumerate(value):
        category = unicodedata.category(char)
        if category in _REFUSED_ID_CATEGORIES:
            return f"an id must not hold {_REFUSED_ID_CATEGORIES[category]} ({char!r} at position {index})"
    return None


def text_problem(value: str, max_chars: int, what: str = "text", setting: str = "max_text_chars") -> str | None:
    """Why `value` is too long (None when it is not)."""
    if len(value) > max_chars:
        return f"a {what} of {len(value):,} characters is longer than the limit of {max_chars:,} ({setting})"
    return None


def timestamp_problem(value: str) -> str | None:
    """Why `value` is not an ISO 8601 timestamp (None when it is); `Z` is accepted for UTC."""
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        return f"{value[:60]!r} is not an ISO 8601 timestamp (e.g. 2025-06-02T18:00:00Z)"
    return None


# --- pydantic after-validators for record models ----------------------------------------------------------


def require_identifier(value: str) -> str:
    problem = identifier_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def require_text(value: str) -> str:
    problem = text_problem(value, current_limits().max_text_chars)
    if problem:
        raise ValueError(problem)
    return value


def require_document_text(value: str) -> str:
    limit = current_limits().max_document_chars
    problem = text_problem(value, limit, "document text", "max_document_chars")
    if problem:
        raise ValueError(problem)
    return value


def require_timestamp(value: str | None) -> str | None:
    if value is None:
        return None
    problem = timestamp_problem(value)
    if problem:
        raise ValueError(problem)
    return value
