"""Cut a document into line-addressed chunks.

Lines are text.split('\\n'), numbered from 1. A chunk is a run of consecutive whole lines of at most
`max_chars` characters; a single longer line is cut at word boundaries into several chunks that share
its line number. Offsets are character offsets into the document text, so every chunk maps back to
an exact span of its document.
"""

from __future__ import annotations

from graph.events import ChunkSpec

CHUNKER_NAME = "lines-v1"
DEFAULT_MAX_CHARS = 1000


def chunker_id(max_chars: int = DEFAULT_MAX_CHARS) -> str:
    return f"{CHUNKER_NAME}:max_chars={max_chars}"


def _split_long_line(line: str, max_chars: int) -> list[tuple[int, int]]:
    """(start, end) offsets within the line, each piece <= max_chars, cut after a space when possible."""
    pieces: list[tuple[int, int]] = []
    start = 0
    while start < len(line):
        end = min(start + max_chars, len(line))
        if end < len(line):
            cut = line.rfind(" ", start + max_chars // 2, end)
            if cut > start:
                end = cut + 1
        pieces.append((start, end))
        start = end
    return pieces


def chunk_document(doc_id: str, text: str, max_chars: int = DEFAULT_MAX_CHARS) -> list[ChunkSpec]:
    """Chunks covering every non-blank line of the document, in order."""
    chunks: list[ChunkSpec] = []
    lines = text.split("\n")
    offsets: list[int] = []
    position = 0
    for line in lines:
        offsets.append(position)
        position += len(line) + 1

    current: list[int] = []  # line indexes (0-based) of the chunk being built
    current_len = 0

    def emit(first: int, last: int, start_char: int, end_char: int) -> None:
        body = text[start_char:end_char]
        if not body.strip():
            return
        chunks.append(
            ChunkSpec(
                chunk_id=f"{doc_id}#c{len(chunks)}",
                ordinal=len(chunks),
                start_line=first + 1,
                end_line=last + 1,
                start_char=start_char,
                end_char=end_char,
                text=body,
            )
        )

    def flush() -> None:
        nonlocal current, current_len
        if current:
            first, last = current[0], current[-1]
            emit(first, last, offsets[first], offsets[last] + len(lines[last]))
        current, current_len = [], 0

    for index, line in enumerate(lines):
        if len(line) > max_chars:
            flush()
            for start, end in _split_long_line(line, max_chars):
                emit(index, index, offsets[index] + start, offsets[index] + end)
            continue
        added = len(line) + (1 if current else 0)
        if current and current_len + added > max_chars:
            flush()
            added = len(line)
        if not current and not line.strip():
            continue  # chunks never start on a blank line
        current.append(index)
        current_len += added
    flush()
    return chunks
