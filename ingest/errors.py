"""Typed input errors: every problem names the file, the line and the field."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from graph.errors import ColabenchError
from graph.json_values import ERROR_TYPE as JSON_VALUE_ERROR


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{_printable(where)}: {_printable(self.field)}: {_printable(self.message)}"


def _printable(text: str) -> str:
    """`text` with control characters escaped, so one problem stays one line (a key may hold a newline)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii") for c in text)


class InputError(ColabenchError):
    """Input rejected; nothing of it was written. Carries every problem found (first ones shown)."""

    def __init__(self, problems: list[Problem], limit: int = 20) -> None:
        self.problems = problems
        shown = "\n".join(str(p) for p in problems[:limit])
        more = f"\n... and {len(problems) - limit} more" if len(problems) > limit else ""
        super().__init__(f"input rejected, nothing was written ({len(problems)} problem(s)):\n{shown}{more}")


def problems_from_validation(file: str, line: int | None, exc: ValidationError) -> list[Problem]:
    out = []
    for error in exc.errors():
        parts = [str(part) for part in error["loc"]]
        message = error["msg"].removeprefix("Value error, ")  # pydantic's prefix says nothing to the reader
        context = error.get("ctx") or {}
        if error["type"] == JSON_VALUE_ERROR:
            # A value canonical JSON would change (NaN, Infinity, ...): name the place inside the field.
            parts += [context["path"]] if context.get("path") else []
            message = context.get("reason", message)
        out.append(Problem(file, line, ".".join(parts) or "(record)", message))
    return out
