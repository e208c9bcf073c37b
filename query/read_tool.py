"""The Read tool: lines of a document, at most 100 lines and 3,000 tokens, with the range actually returned.

Lines are `text.split('\\n')`, numbered from 1 (the same addressing as chunks and exposures). Whole lines are
returned while they fit the token budget; only a first line that alone exceeds it is cut (at a word boundary)
and flagged as truncated. Tokens are the run's counter's (query/tokens.py: the answering model's tokenizer, or
the named WordPiece fallback); with a counter other than WordPiece the returned text itself is counted (the
lines joined by newlines), so the limit holds for exactly what the model is sent.
"""

from __future__ import annotations

from neo4j import Driver

from graph.cypher_files import load_cypher
from query.errors import BadRangeError, UnknownDocumentError
from query.results import ReadResult
from query.tokens import (
    WORDPIECE,
    TokenCounter,
    WordPieceCounter,
    count_tokens,
    cut_to_tokens,
    longest_fitting_prefix,
)

MAX_LINES = 100
MAX_TOKENS = 3000


def select_lines(
    lines: list[str],
    start_line: int,
    n_lines: int,
    max_lines: int = MAX_LINES,
    max_tokens: int = MAX_TOKENS,
    counter: TokenCounter = WORDPIECE,
) -> tuple[list[str], bool, int]:
    """Lines from `start_line` (1-based, already checked) under the limits -> (lines, truncated, n_tokens)."""
    wanted = lines[start_line - 1 : start_line - 1 + min(n_lines, max_lines)]
    truncated = n_lines > max_lines and start_line - 1 + max_lines < len(lines)
    if not isinstance(counter, WordPieceCounter):
        return _select_by_text(wanted, truncated, max_tokens, counter)
    counts = count_tokens(wanted)
    out: list[str] = []
    used = 0
    for line, n in zip(wanted, counts, strict=True):
        if used + n > max_tokens:
            truncated = True
            if not out:
                cut = cut_to_tokens(line, max_tokens)
                out.append(cut)
                used = count_tokens([cut])[0]
            break
        out.append(line)
        used += n
    return out, truncated, used


def _select_by_text(
    wanted: list[str], truncated: bool, max_tokens: int, counter: TokenCounter
) -> tuple[list[str], bool, int]:
    """The most whole lines whose joined text fits `max_tokens` (one count when all fit, else a binary search
    over the number of lines); a first line that alone exceeds it is cut."""
    sizes: dict[int, int] = {}

    def size(k: int) -> int:
        if k not in sizes:
            sizes[k] = counter.count(["\n".join(wanted[:k])])[0] if k else 0
        return sizes[k]

    keep = longest_fitting_prefix(len(wanted), lambda k: size(k) <= max_tokens)
    if keep == len(wanted):
        return wanted, truncated, size(keep)
    if keep == 0 and wanted:
        cut = cut_to_tokens(wanted[0], max_tokens, counter)
        return [cut], True, counter.count([cut])[0]
    return wanted[:keep], True, size(keep)


def read_document(
    driver: Driver,
    database: str,
    doc_id: str,
    start_line: int = 1,
    n_lines: int = MAX_LINES,
    counter: TokenCounter = WORDPIECE,
) -> ReadResult:
    """Read `n_lines` lines of `doc_id` from `start_line` (limits: 100 lines, 3,000 tokens).

    Raises UnknownDocumentError for an id not in the graph and BadRangeError for start_line < 1,
    start_line past the last line, or n_lines < 1."""
    if n_lines < 1:
        raise BadRangeError(f"read {doc_id!r}: n_lines must be at least 1, got {n_lines}")
    if start_line < 1:
        raise BadRangeError(
            f"read {doc_id!r}: start_line must be at least 1 (lines are numbered from 1), got {start_line}"
        )
    with driver.session(database=database) as session:
        record = session.run(load_cypher("query/read_document"), doc_id=doc_id).single()
    if record is None:
        raise UnknownDocumentError(
            f"read: no document {doc_id!r} in the graph; use a doc_id returned by a search (ids are case-sensitive)"
        )
    all_lines = str(record["text"]).split("\n")
    if start_line > len(all_lines):
        raise BadRangeError(
            f"read {doc_id!r}: start_line {start_line} is past the end of the document ({len(all_lines)} lines)"
        )
    lines, truncated, n_tokens = select_lines(all_lines, start_line, n_lines, counter=counter)
    return ReadResult(
        doc_id=doc_id,
        title=str(record["title"]),
        start_line=start_line,
        end_line=start_line + len(lines) - 1,
        lines=lines,
        text="\n".join(lines),
        truncated=truncated,
        n_tokens=n_tokens,
        tokenizer=counter.name,
        doc_lines=len(all_lines),
    )
