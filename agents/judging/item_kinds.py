"""Which items a judge applies to, from the item's metadata (never from the method's answer).

An item is an *abstention* (flawed-premise) question when any of these holds: its labels contain `abstention`
or `flawed_premise`; its question_type is `abstention`, `flawed_premise` or `false_premise` (case and `-`/space
folded to `_`); its metadata has `abstention: true` or `flawed_premise: true`. The LongMemEval adapter labels
`_abs` questions `abstention`, so those qualify. An item is a *gotcha* question when its labels contain
`gotcha` or `gotchas`, its question_type is `gotcha` or `gotchas`, or its metadata has `gotcha: true`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ABSTENTION_MARKS = frozenset({"abstention", "flawed_premise", "false_premise"})
GOTCHA_MARKS = frozenset({"gotcha", "gotchas"})


@dataclass(frozen=True)
class ItemTraits:
    """What a judge's item rule reads: question_type, labels and metadata of the item."""

    question_type: str | None = None
    labels: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, question_type: Any, labels: Any, metadata: Any) -> ItemTraits:
        """From graph properties (metadata may be the stored JSON string)."""
        if isinstance(metadata, str):
            try:
                metadata = json.loads(metadata)
            except json.JSONDecodeError:
                metadata = {}
        return cls(
            question_type=str(question_type) if question_type else None,
            labels=tuple(str(x) for x in (labels or [])),
            metadata=metadata if isinstance(metadata, dict) else {},
        )


def _fold(text: str) -> str:
    return text.strip().lower().replace("-", "_").replace(" ", "_")


def _marked(traits: ItemTraits, marks: frozenset[str]) -> bool:
    if any(_fold(label) in marks for label in traits.labels):
        return True
    if traits.question_type and _fold(traits.question_type) in marks:
        return True
    return any(traits.metadata.get(mark) is True for mark in marks)


def is_abstention_item(traits: ItemTraits) -> bool:
    return _marked(traits, ABSTENTION_MARKS)


def is_gotcha_item(traits: ItemTraits) -> bool:
    return _marked(traits, GOTCHA_MARKS)
