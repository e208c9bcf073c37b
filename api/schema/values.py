"""Turning stored property values into GraphQL values, and checking paging arguments."""

from __future__ import annotations

import json
from typing import Any, cast

from strawberry.scalars import JSON

from api.errors import BadInputError

# Upper bound of every `first`/`limit` argument (the cost rule multiplies list sizes by these).
MAX_PAGE = 1000


def to_json(value: Any) -> JSON:
    """A plain value (dicts, lists, numbers, strings) typed as the GraphQL JSON scalar."""
    return cast(JSON, value)


def json_value(raw: Any, default: Any = None) -> JSON:
    """Dict-valued properties are stored as JSON strings (Neo4j has no map properties); decode them.
    A missing or empty value gives `default`."""
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
    return to_json(default if value is None or value in ("", [], {}) else value)


def string_list(raw: Any) -> list[str]:
    return [str(v) for v in raw] if isinstance(raw, list) else []


def page_size(first: int, field: str, maximum: int = MAX_PAGE) -> int:
    """`first` checked to lie in 0..maximum; BadInputError names the field otherwise."""
    if first < 0 or first > maximum:
        raise BadInputError(f"{field}: first must be between 0 and {maximum}, got {first}")
    return first
