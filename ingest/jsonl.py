"""Reading JSON Lines (plain or gzip) with line numbers, and JSON files, with located errors."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ingest.errors import Problem


def open_text(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def iter_jsonl(path: Path, problems: list[Problem]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; malformed lines are added to `problems`."""
    with open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(
                    Problem(str(path), number, "(json)", f"not valid JSON: {exc.msg} at column {exc.colno}")
                )
                continue
            if not isinstance(value, dict):
                problems.append(Problem(str(path), number, "(record)", "expected a JSON object"))
                continue
            yield number, value


def load_json(path: Path) -> Any:
    """Parse a JSON (or .json.gz) file; a syntax error names the line and column."""
    from ingest.errors import InputError

    try:
        with open_text(path) as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        raise InputError([Problem(str(path), exc.lineno, "(json)", f"not valid JSON: {exc.msg}")]) from exc
