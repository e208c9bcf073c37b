"""Format versions of the files colabench writes for later reading (report.json, the JSONL event export, the LLM
exchange store and its export), and the one check every reader makes.

A writer stamps the version its module owns; a reader accepts that version, any older one and an unversioned
file (written before versions existed, read as version 0), and refuses a newer one with one line that names the
file, the version found and the version this colabench reads. A JSONL file carries its version in a first
header line (`{"format": KIND, "format_version": N}`), so its records stay what they were.
"""

from __future__ import annotations

import json
from typing import Any

from graph.errors import GraphError

HEADER_KEY = "format"
VERSION_KEY = "format_version"


class FormatVersionError(GraphError):
    """A file written by a newer colabench (or with a version that is not a whole number): it is not read.
    `found` and `supported` let a channel that must not show the file's path (the API) say the same thing."""

    def __init__(self, message: str, found: object = None, supported: int | None = None) -> None:
        super().__init__(message)
        self.found = found
        self.supported = supported


def check_version(found: Any, supported: int, where: str) -> int:
    """The version of a file about to be read (0 when it has none); FormatVersionError when it is newer than
    `supported` or not a non-negative whole number. `where` names the file in the message."""
    if found is None:
        return 0
    if isinstance(found, bool) or not isinstance(found, int) or found < 0:
        raise FormatVersionError(f"{where}: {VERSION_KEY} {found!r} is not a whole number >= 0", found, supported)
    if found > supported:
        raise FormatVersionError(
            f"{where}: format version {found} is newer than the supported version {supported}; "
            "read it with a newer colabench",
            found,
            supported,
        )
    return found


def header_line(kind: str, version: int) -> str:
    """The first line of a versioned JSONL file of this kind (with its newline)."""
    return json.dumps({HEADER_KEY: kind, VERSION_KEY: version}, sort_keys=True) + "\n"


def header_version(row: Any, kind: str, supported: int, where: str) -> int | None:
    """When `row` (the first JSON object of a JSONL file) is a header of `kind`, its checked version; None when
    the row is a record (an unversioned file). A header of another kind is refused by name."""
    if not isinstance(row, dict) or HEADER_KEY not in row or VERSION_KEY not in row:
        return None
    if row[HEADER_KEY] != kind:
        raise FormatVersionError(f"{where}: a {row[HEADER_KEY]!r} file, not {kind!r}")
    return check_version(row[VERSION_KEY], supported, where)
