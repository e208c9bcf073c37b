"""Reading JSON Lines (plain or gzip) with line numbers, and JSON files, with located errors.

Both readers are strict (`ingest.strict_json`) and bounded (`ingest.limits`): a line longer than
`max_line_bytes` is refused without being held whole in memory; bytes that are not UTF-8 name their line and
position; a truncated or corrupt gzip stream names the line it stopped at instead of escaping as EOFError
(which the CLI would print as a bare "Aborted.").
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast

from ingest.errors import InputError, Problem
from ingest.limits import current_limits
from ingest.strict_json import decode_json

# What a damaged file raises while it is read: truncated gzip (EOFError), not gzip at all (BadGzipFile),
# corrupt deflate data (zlib.error), and I/O errors.
_READ_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error, OSError)


def open_text(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def _open_binary(path: Path) -> IO[bytes]:
    if path.suffix == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def read_problem(file: str, line: int | None, exc: BaseException) -> Problem:
    """A located problem for an error raised while reading (decompressing) a file."""
    if isinstance(exc, EOFError):
        message = "the gzip stream ends early (the file is truncated); copy or download it again"
    elif isinstance(exc, gzip.BadGzipFile):
        message = f"not a gzip file ({exc}); decompress it or drop the .gz suffix"
    elif isinstance(exc, zlib.error):
        message = f"the gzip data is corrupt ({exc}); copy or download it again"
    else:
        message = f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
    compressed = isinstance(exc, EOFError | gzip.BadGzipFile | zlib.error)
    return Problem(file, line, "(gzip)" if compressed else "(file)", message)


def decoding_problem(file: str, line: int, data: bytes, exc: UnicodeDecodeError) -> Problem:
    """Bytes that are not UTF-8 (`data` a line, or a whole file): the line and the byte position in it."""
    column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    return Problem(
        file,
        line,
        "(encoding)",
        f"not UTF-8: byte 0x{data[exc.start]:02x} at byte {column} of the line; save the file as UTF-8",
    )


def iter_text_lines(path: Path, problems: list[Problem], display: str | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of a plain or gzip UTF-8 text file, bounded by `max_line_bytes`; lines
    that are too long or not UTF-8, and a damaged gzip stream, are added to `problems` (named `display`)."""
    name = display or str(path)
    limits = current_limits()
    try:
        handle = _open_binary(path)
    except OSError as exc:
        problems.append(read_problem(name, None, exc))
        return
    number = 0
    with handle:
        while True:
            try:
                raw = handle.readline(limits.max_line_bytes + 1)
            except _READ_ERRORS as exc:
                problems.append(read_problem(name, number + 1, exc))
                return
            if not raw:
                return
            number += 1
            if len(raw) > limits.max_line_bytes and not raw.endswith(b"\n"):
                problems.append(
                    Problem(
                        name,
                        number,
                        "(line)",
                        f"longer than {limits.max_line_bytes:,} bytes (max_line_bytes); split the record or raise "
                        "the limit",
                    )
                )
                try:
                    while (rest := handle.readline(1 << 20)) and not rest.endswith(b"\n"):
                        pass
                except _READ_ERRORS as exc:
                    problems.append(read_problem(name, number, exc))
                    return
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                problems.append(decoding_problem(name, number, raw, exc))
                continue
            yield number, text.removeprefix("\ufeff") if number == 1 else text


def iter_jsonl(path: Path, problems: list[Problem], display: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; bad lines are added to `problems` (named `display`,
    by default the path)."""
    name = display or str(path)
    limits = current_limits()
    for number, text in iter_text_lines(path, problems, name):
        if not text.strip():
            continue
        value, errs = decode_json(text, name, number, limits)
        if errs:
            problems.extend(errs)
            continue
        if not isinstance(value, dict):
            problems.append(Problem(name, number, "(record)", "expected a JSON object"))
            continue
        yield number, value


def read_text_file(path: Path, display: str | None = None) -> tuple[str | None, list[Problem]]:
    """A whole (optionally gzip) UTF-8 file as text, or None and the located problem."""
    name = display or str(path)
    chunks: list[bytes] = []
    lines = 0
    try:
        with _open_binary(path) as handle:
            # Chunk by chunk, so that a truncated or corrupt gzip stream names the line it stopped at.
            while chunk := handle.read(1 << 20):
                chunks.append(chunk)
                lines += chunk.count(b"\n")
    except _READ_ERRORS as exc:
        return None, [read_problem(name, lines + 1 if chunks else None, exc)]
    data = b"".join(chunks)
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), []
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, [decoding_problem(name, line, data, exc)]


def read_json_file(path: Path, display: str | None = None) -> tuple[Any, list[Problem]]:
    """Parse a JSON (or .json.gz) file strictly: the value (None when unreadable) and every problem."""
    name = display or str(path)
    text, problems = read_text_file(path, name)
    if text is None:
        return None, problems
    return decode_json(text, name, None, current_limits())


def load_json(path: Path, display: str | None = None) -> Any:
    """Parse a JSON (or .json.gz) file; raise InputError naming file, line and field of every problem."""
    value, problems = read_json_file(path, display)
    if problems:
        raise InputError(problems)
    return value
