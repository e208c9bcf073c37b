"""Export the log to JSONL and import it into another database (its projection is rebuilt on import).

The file starts with a header line carrying its format version (graph/format_version.py); a file without one
(written before versions existed) still reads, and a newer one is refused before anything is imported."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from graph.errors import ChainBrokenError, GraphError
from graph.format_version import header_line, header_version
from graph.integrity import verify_chain
from graph.store import EventStore
from graph.stored_event import StoredEvent

# The kind and version of the export written by `export_log` (1: a header line, then one event per line).
EVENTS_FORMAT = "colabench-events"
EVENTS_FORMAT_VERSION = 1


def export_log(store: EventStore, path: Path, progress: Callable[[int], None] | None = None) -> int:
    """Write the header line, then every event in seq order, one JSON object per line. Returns the number of
    events written."""
    count = 0
    tmp = path.with_suffix(path.suffix + ".partial")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(header_line(EVENTS_FORMAT, EVENTS_FORMAT_VERSION))
        for event in store.read():
            handle.write(json.dumps(event.model_dump(mode="json"), ensure_ascii=False, sort_keys=True) + "\n")
            count += 1
            if progress and count % 1000 == 0:
                progress(1000)
    tmp.replace(path)
    return count


def read_log_file(path: Path) -> list[StoredEvent]:
    """The events of an export (FormatVersionError when its header names a newer format than this code reads;
    GraphError naming the line of the first record that is not an event)."""
    events: list[StoredEvent] = []
    first = True
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            if first:
                first = False
                if _is_header(line, path):
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


def log_file_version(path: Path) -> int:
    """The format version of an export (0 when it has no header), checked: FormatVersionError when newer. Lets
    a command refuse the file before it writes anything else (the exchanges beside it)."""
    try:
        with path.open(encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
    except (OSError, UnicodeDecodeError) as exc:
        raise GraphError(f"{path}: the event log cannot be read ({exc})") from exc
    return header_version(_json_or_none(first), EVENTS_FORMAT, EVENTS_FORMAT_VERSION, str(path)) or 0


def _json_or_none(line: str) -> object:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _is_header(line: str, path: Path) -> bool:
    """Whether the first line of an export is its header (checked: a newer version is refused)."""
    # A line that is not JSON is not a header: it is reported as a bad event record, with its line number.
    return header_version(_json_or_none(line), EVENTS_FORMAT, EVENTS_FORMAT_VERSION, str(path)) is not None
