"""A knowledge-base JSONL(.gz): one document per line (doc_id, title, text, optional url/source/...)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from graph.events import DocumentChunked, NewEvent
from ingest.adapters import AdapterResult
from ingest.bundle.models import DocumentRecord
from ingest.documents import documents_events
from ingest.errors import InputError, Problem, problems_from_validation
from ingest.jsonl import iter_jsonl

ACTOR = "ingest:kb"
_RECORD_FIELDS = set(DocumentRecord.model_fields)


def _as_written(problem: Problem, moved: set[str]) -> Problem:
    """A problem in a top-level field the loader moved into `metadata`, named as the line has it."""
    head, _, rest = problem.field.partition(".")
    if head == "metadata" and rest.partition(".")[0] in moved:
        return Problem(problem.file, problem.line, rest, problem.message)
    return problem


def load_knowledge_base(path: Path) -> AdapterResult:
    """Validate every line first (a bad line rejects the file), then build the document events."""
    problems: list[Problem] = []
    records: list[dict[str, object]] = []
    seen: dict[str, int] = {}
    for number, raw in iter_jsonl(path, problems):
        core = {k: v for k, v in raw.items() if k in _RECORD_FIELDS}
        extra = {k: v for k, v in raw.items() if k not in _RECORD_FIELDS and v is not None}
        given_metadata = raw.get("metadata")
        if given_metadata is not None and not isinstance(given_metadata, dict):
            problems.append(
                Problem(str(path), number, "metadata", f"must be a JSON object, not {type(given_metadata).__name__}")
            )
            continue
        try:
            record = DocumentRecord.model_validate({**core, "metadata": {**extra, **(raw.get("metadata") or {})}})
        except ValidationError as exc:
            given = raw.get("metadata")
            moved = set(extra) - set(given if isinstance(given, dict) else ())
            problems.extend(_as_written(p, moved) for p in problems_from_validation(str(path), number, exc))
            continue
        if record.doc_id in seen:
            problems.append(
                Problem(
                    str(path), number, "doc_id", f"duplicate id {record.doc_id!r} (first on line {seen[record.doc_id]})"
                )
            )
            continue
        seen[record.doc_id] = number
        records.append(record.model_dump())
    if problems:
        raise InputError(problems)
    events = [NewEvent(event, ACTOR) for event in documents_events(records)]
    chunks = sum(len(e.event.chunks) for e in events if isinstance(e.event, DocumentChunked))
    return AdapterResult("kb", events, {"documents": len(records), "chunks": chunks})
