"""The one validator `check` and `ingest` share, and the limits every event of every loader must meet.

`validate_bundle` is all of a bundle's validation: records (reader), cross-references (checker), and the
events they become (event models and `event_problems`), so `check` can never accept what `ingest` refuses.
`event_problems` is the last guard of every format: ids and texts an adapter derived must still fit the
limits of `ingest.limits` before anything reaches Neo4j.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graph.events import NewEvent
from ingest.bundle.check import CheckReport, check_bundle
from ingest.bundle.reader import Bundle, read_bundle
from ingest.errors import Problem, problems_from_validation
from ingest.limits import DERIVED_ID_SLACK, current_limits, identifier_problem, text_problem

# Event fields holding a document's whole text (bounded by max_document_chars, not max_text_chars).
_DOCUMENT_TEXT_FIELDS = {("DocumentIngested", "text")}
_MAX_EVENT_PROBLEMS = 200


def _is_id_field(name: str) -> bool:
    return name == "id" or name.endswith(("_id", "_ids"))


def _label(payload: dict[str, Any]) -> str:
    for key, value in payload.items():
        if _is_id_field(key) and isinstance(value, str):
            return f"{key} {value[:60]!r}{'...' if len(value) > 60 else ''}"
    return "(event)"


def event_problems(events: Sequence[NewEvent], source: str) -> list[Problem]:
    """Ids (any `*_id`/`*_ids` field) and top-level texts of the events that break the input limits."""
    limits = current_limits()
    id_limit = limits.max_id_chars + DERIVED_ID_SLACK
    problems: list[Problem] = []
    for new in events:
        payload = new.event.payload()
        kind = new.event.TYPE
        for key, value in payload.items():
            found: str | None = None
            if _is_id_field(key):
                values = value if isinstance(value, list) else [value]
                for item in values:
                    if isinstance(item, str) and (found := identifier_problem(item, id_limit)):
                        break
            elif isinstance(value, str):
                if (kind, key) in _DOCUMENT_TEXT_FIELDS:
                    found = text_problem(value, limits.max_document_chars, "document text", "max_document_chars")
                else:
                    found = text_problem(value, limits.max_text_chars)
            if found:
                problems.append(Problem(source, None, f"{kind}.{key}", f"{_label(payload)}: {found}"))
                if len(problems) >= _MAX_EVENT_PROBLEMS:
                    return problems
    return problems


def validate_bundle(path: Path) -> tuple[Bundle, CheckReport, list[NewEvent]]:
    """Read (raises InputError for bad records), cross-check and convert a bundle; the report lists every
    problem left, and the events are those `ingest` would append (empty when the report is not ok)."""
    from ingest.bundle.to_events import bundle_events

    bundle = read_bundle(path)
    report = check_bundle(bundle)
    if not report.ok:
        return bundle, report, []
    try:
        events = bundle_events(bundle)
    except ValidationError as exc:
        report.problems.extend(problems_from_validation(str(path), None, exc))
        return bundle, report, []
    report.problems.extend(event_problems(events, str(path)))
    return bundle, report, events if report.ok else []
