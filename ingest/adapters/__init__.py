"""Adapters: each input format becomes an ordered list of events plus the counts it promises."""

from __future__ import annotations

from dataclasses import dataclass, field

from graph.events import NewEvent


@dataclass
class AdapterResult:
    """What an adapter produced: events in append order, counts to print and check, warnings."""

    dataset: str
    events: list[NewEvent]
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
