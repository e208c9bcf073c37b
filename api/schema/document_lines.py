"""DocumentLines: the text of a line range of a document (lines are text split on '\\n', numbered from 1)."""

from __future__ import annotations

from typing import Any

import strawberry

from api.errors import BadInputError, NotFoundError
from api.loaders import Loaders

MAX_LINES = 1000


@strawberry.type(description="Lines start_line..end_line (inclusive) of a document, cut at its last line.")
class DocumentLines:
    doc_id: str
    start_line: int
    end_line: int = strawberry.field(description="last line returned (may be before the requested end)")
    n_lines: int = strawberry.field(description="number of lines of the whole document")
    lines: list[str]
    truncated: bool = strawberry.field(description="true when the requested range ran past the document's end")

    @strawberry.field(description="the lines joined with newlines")
    def text(self) -> str:
        return "\n".join(self.lines)

    @classmethod
    def build(cls, doc_id: str, start: int, requested_end: int, n_lines: int, lines: list[str]) -> DocumentLines:
        end = start + len(lines) - 1 if lines else start - 1
        return cls(
            doc_id=doc_id,
            start_line=start,
            end_line=end,
            n_lines=n_lines,
            lines=lines,
            truncated=requested_end > n_lines,
        )


def check_range(start_line: int, end_line: int) -> None:
    if start_line < 1:
        raise BadInputError(f"start_line must be 1 or more, got {start_line}")
    if end_line < start_line:
        raise BadInputError(f"end_line {end_line} is before start_line {start_line}")
    if end_line - start_line + 1 > MAX_LINES:
        raise BadInputError(f"at most {MAX_LINES} lines per request; asked for {end_line - start_line + 1}")


async def load_lines(loaders: Loaders, doc_id: str, start_line: int, end_line: int) -> DocumentLines:
    """The text of a line range through the request's line loader; NotFoundError for an unknown document."""
    check_range(start_line, end_line)
    row: dict[str, Any] | None = await loaders.lines.load((doc_id, start_line, end_line))
    if row is None:
        raise NotFoundError(f"no document with id {doc_id!r}")
    return DocumentLines.build(doc_id, start_line, end_line, int(row["n_lines"] or 0), list(row["lines"] or []))
