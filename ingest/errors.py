"""Typed input errors: every problem names the file, the line and the field."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.field}: {self.message}"


class InputError(Exception):
    """Input rejected; nothing of it was written. Carries every problem found (first ones shown)."""

    def __init__(self, problems: list[Problem], limit: int = 20) -> None:
        self.problems = problems
        shown = "\n".join(str(p) for p in problems[:limit])
        more = f"\n... and {len(problems) - limit} more" if len(problems) > limit else ""
        super().__init__(f"input rejected, nothing was written ({len(problems)} problem(s)):\n{shown}{more}")


def problems_from_validation(file: str, line: int | None, exc: ValidationError) -> list[Problem]:
    out = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "(record)"
        out.append(Problem(file, line, field, error["msg"]))
    return out
