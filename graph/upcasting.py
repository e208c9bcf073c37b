"""Upcasters: how an event written under an older schema version is read today.

The log is immutable and hash-chained, so an event keeps the payload it was written with; its `schema_version`
says which model wrote it. Reading (projection, replay, `StoredEvent.domain_event`) passes every event through
`upcast`, which applies registered steps until the event is at its type's current `VERSION`. A step may rename
fields, fill new ones, or turn the event into another type (a type split).

To change an event's schema: bump `VERSION` on its class in graph/events.py and register a step from the old
version here with `register_upcaster`. A log exported before the change then imports and projects as if it had
been written today (tests/graph/test_upcasting.py imports such a v1 log).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graph.errors import UnknownEventTypeError
from graph.events import EVENT_TYPES

# (type, version) -> step returning (type, version, payload) one version (or type) further on.
Step = Callable[[dict[str, Any]], tuple[str, int, dict[str, Any]]]
_STEPS: dict[tuple[str, int], Step] = {}


def register_upcaster(event_type: str, from_version: int, step: Step) -> None:
    if (event_type, from_version) in _STEPS:
        raise ValueError(f"an upcaster from {event_type} v{from_version} is already registered")
    _STEPS[(event_type, from_version)] = step


def current_version(event_type: str) -> int:
    model = EVENT_TYPES.get(event_type)
    if model is None:
        raise UnknownEventTypeError(f"unknown event type {event_type!r}")
    return model.VERSION


def upcast(event_type: str, version: int, payload: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """The event read at its type's current version (unchanged when it already is)."""
    for _ in range(64):  # a chain of steps, never a loop
        target = current_version(event_type)
        if version == target:
            return event_type, version, payload
        if version > target:
            raise UnknownEventTypeError(
                f"{event_type} v{version} was written by a newer colabench (this one reads up to v{target})"
            )
        step = _STEPS.get((event_type, version))
        if step is None:
            raise UnknownEventTypeError(f"no upcaster from {event_type} v{version} to v{target}")
        event_type, version, payload = step(payload)
    raise UnknownEventTypeError(f"upcasting {event_type} v{version} does not converge")


def needs_upcast(event_type: str, version: int) -> bool:
    return version != current_version(event_type)


# --- AttemptFinished / RunFinished v1 -> v2: failed tries and unfinished passes became their own types -------


def _attempt_finished_v1(payload: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    if payload.get("status") == "error":
        failed = {
            "attempt_id": payload["attempt_id"],
            "seconds": payload.get("seconds", 0.0),
            "error": payload.get("error") or "",
            "usage": payload.get("usage") or {},
        }
        return "AttemptFailed", 1, failed
    return "AttemptFinished", 2, payload


def _run_finished_v1(payload: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    if payload.get("status") == "incomplete":
        left = {k: v for k, v in payload.items() if k != "status"}
        return "RunLeftIncomplete", 1, left
    return "RunFinished", 2, payload


register_upcaster("AttemptFinished", 1, _attempt_finished_v1)
register_upcaster("RunFinished", 1, _run_finished_v1)
