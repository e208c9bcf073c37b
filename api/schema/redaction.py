"""Gold fields hidden from requests that may not see them (reference answers), wherever they appear."""

from __future__ import annotations

from typing import Any

GOLD_KEYS = frozenset({"reference_answer"})


def redact_gold(value: Any, found: list[str], path: str = "") -> Any:
    """A copy of `value` with every gold key's value replaced by None; their paths are appended to `found`."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if key in GOLD_KEYS and item is not None:
                out[key] = None
                found.append(where)
            else:
                out[key] = redact_gold(item, found, where)
        return out
    if isinstance(value, list):
        return [redact_gold(item, found, f"{path}[{index}]") for index, item in enumerate(value)]
    return value
