"""Export the log to JSONL and import it into another database (its projection is rebuilt on import)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from graph.errors import ChainBrokenError, GraphError
from graph.events import StoredEvent
from graph.integrity import verify_chain
from graph.store import EventStore


def export_log(store: EventStore, path: Path, progress: Callable[[int], None] | None = None) -> int:
    """Write every event, in seq order, one JSON object per line. Returns the number written."""
    count = 0
    tmp = path.with_suffix(path.suffix + ".partial")
    with tmp.open("w", encoding="utf-8") as handle:
        for event in store.read():
            handle.write(json.dumps(event.model_dump(mode="json"), ensure_ascii=False, sort_keys=True) + "\n")
            count += 1
            if progress and count % 1000 == 0:
                progress(1000)
    tmp.replace(path)
    return count


def read_log_file(path: Path) -> list[StoredEvent]:
    events: list[StoredEvent] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                events.append(StoredEvent.model_validate_json(line))
            except ValueError as exc:
                raise GraphError(f"{path}:{number}: not a valid event record: {exc}") from exc
    return events


def import_log(
    store: EventStore, path: Path, batch_size: int = 2000, progress: Callable[[int], None] | None = None
) -> tuple[int, int]:
    """Import a JSONL log. The file's chain must verify; events the database already has (same seq and
    hash) are skipped, so an interrupted import resumes. Returns (imported, already_present)."""
    events = read_log_file(path)
    report = verify_chain(events)
    if not report.ok:
        raise ChainBrokenError(f"{path}: the log does not verify at seq {report.first_broken_seq}: {report.problem}")
    head = store.head()
    if head.seq > 0 and (head.seq > len(events) or events[head.seq - 1].hash != head.hash):
        raise ChainBrokenError(
            f"the database already holds a different log (head seq {head.seq}); import into an empty "
            "database or one holding a prefix of this file"
        )
    remaining = events[head.seq :]
    for start in range(0, len(remaining), batch_size):
        batch = remaining[start : start + batch_size]
        store.import_stored(batch)
        if progress:
            progress(len(batch))
    return len(remaining), head.seq
