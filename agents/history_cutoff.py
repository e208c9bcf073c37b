"""Where an item's visible history stops: the one rule the answering agent and the gold-leak check share.

An item may declare the last turn of its history in metadata `asked_after_turn_id` (adapters whose sessions
go on after the request, e.g. iKAT, where one conversation carries every asked turn and its canonical
response); otherwise the cut-off follows `asked_at` and the turns' times.
"""

from __future__ import annotations

import json
from typing import Any

from agents.history import last_turn_before

DECLARED_CUTOFF_KEY = "asked_after_turn_id"


def item_metadata(raw: Any) -> dict[str, Any]:
    """An Item node's `metadata` property (a JSON string, a map or null) as a dict."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw:
        value = json.loads(raw)
        return value if isinstance(value, dict) else {}
    return {}


def item_cutoff_turn(metadata: dict[str, Any], turns: list[dict[str, Any]], asked_at: str | None) -> str | None:
    """The id of the last turn the item may see, or None when its whole profile history precedes it.

    `turns` are the profile's turns in order ({id, at}). A declared cut-off wins over times; a declared
    cut-off that is the profile's last turn means nothing follows the request (None)."""
    declared = metadata.get(DECLARED_CUTOFF_KEY)
    if isinstance(declared, str) and declared:
        if turns and turns[-1].get("id") == declared:
            return None
        return declared
    return last_turn_before(turns, asked_at)
