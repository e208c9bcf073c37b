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
    # Choices the adapter made that the input itself does not state and that the events depend on (LoCoMo:
    # `locomo_caption`, the form in which image captions join the turn text); printed by `ingest` and checked
    # against the graph before anything is written (ingest.pipeline.write_events).
    settings: dict[str, str] = field(default_factory=dict)
