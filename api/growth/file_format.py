"""Reading the append file of `colabench profile append`: JSON (one record or a list) or JSONL (one per line).

Every record is validated before anything is written; all problems are reported at once with the file, the
line (JSONL) or record index (JSON), and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from api.growth.models import SessionAppend, TurnsAppend
from ingest.errors import InputError, Problem, problems_from_validation
from ingest.jsonl import read_text_file
from ingest.limits import current_limits
from ingest.strict_json import decode_json

AppendRequest = SessionAppend | TurnsAppend


@dataclass(frozen=True)
class LocatedRequest:
    where: str
    request: AppendRequest


def parse_record(
    data: Any, file: str, line: int | None, prefix: str = ""
) -> tuple[AppendRequest | None, list[Problem]]:
    """A record with `profile_id` starts a session; one with only `session_id` appends turns to a session."""
    if not isinstance(data, dict):
        return None, [Problem(file, line, prefix or "(record)", "expected a JSON object")]
    model: type[SessionAppend] | type[TurnsAppend] = SessionAppend if "profile_id" in data else TurnsAppend
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        problems = problems_from_validation(file, line, exc)
        if prefix:
            problems = [Problem(p.file, p.line, f"{prefix}.{p.field}", p.message) for p in problems]
        return None, problems


def read_append_file(path: Path) -> list[LocatedRequest]:
    """All records of the file, validated; InputError (nothing written) listing every problem otherwise."""
    if not path.is_file():
        raise InputError([Problem(str(path), None, "path", "is not a file")])
    name = str(path)
    text, unreadable = read_text_file(path, name)
    if text is None:
        raise InputError(unreadable)
    limits = current_limits()
    problems: list[Problem] = []
    found: list[LocatedRequest] = []
    if path.suffix.lower() == ".jsonl":
        for number, raw in enumerate(text.split("\n"), start=1):
            if not raw.strip():
                continue
            if len(raw.encode("utf-8", "surrogatepass")) > limits.max_line_bytes:
                problems.append(Problem(name, number, "(line)", f"longer than {limits.max_line_bytes:,} bytes"))
                continue
            data, errs = decode_json(raw, name, number, limits)
            if errs:
                problems.extend(errs)
                continue
            request, errs = parse_record(data, name, number)
            problems.extend(errs)
            if request is not None:
                found.append(LocatedRequest(f"{name}:{number}", request))
    else:
        data, errs = decode_json(text, name, None, limits)
        if errs:
            raise InputError(errs)
        records = data if isinstance(data, list) else [data]
        for index, record in enumerate(records):
            prefix = f"[{index}]" if isinstance(data, list) else ""
            request, errs = parse_record(record, name, None, prefix)
            problems.extend(errs)
            if request is not None:
                found.append(LocatedRequest(f"{name}{prefix}", request))
    if problems:
        raise InputError(problems)
    if not found:
        raise InputError([Problem(name, None, "(file)", "holds no records")])
    return found
