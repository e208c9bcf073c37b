"""How much of a support document the History Gate's blind solver sees (prints figures; no Neo4j, no LLM).

For every document of a KB (the bundled sample's, and ../shared/data/kb when present): whether the old excerpt
(the first 120 lines, at most 8,000 characters) held it whole, and how many Read calls of the agent's Read tool
(query/read_tool.py select_lines: 100 lines, 3,000 WordPiece tokens each, from line 1, each after the previous
one's last line) it takes to read it whole; the share read whole within 1, 2, 4 (the default `blind_reads`) and
8 calls, and the largest document's pages.

    python bench/blind_reading_coverage.py
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from query.read_tool import MAX_LINES, select_lines  # noqa: E402

SOURCES = {
    "bundled sample": REPO / "samples" / "colabench-sample" / "documents.jsonl",
    "shared KB": REPO.parent / "shared" / "data" / "kb" / "documents.jsonl.gz",
}


def texts(path: Path) -> Iterator[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
        for line in handle:
            yield json.loads(line)["text"]


def old_excerpt_whole(lines: list[str]) -> bool:
    """The former blind-solver view: lines 1-120 while the numbered text stays within 8,000 characters."""
    used = 0
    for number, line in enumerate(lines[:120], start=1):
        used += len(f"{number}: {line}") + 1
        if used > 8000 and number > 1:
            return False
    return len(lines) <= 120


def reads_needed(lines: list[str], cap: int = 1000) -> int | None:
    start, calls = 1, 0
    while start <= len(lines) and calls < cap:
        got, _, _ = select_lines(lines, start, MAX_LINES)
        if len(got) == 1 and got[0] != lines[start - 1]:
            return None  # a line longer than the token limit: never read whole
        start += len(got)
        calls += 1
    return calls


def main() -> None:
    for name, path in SOURCES.items():
        if not path.is_file():
            print(f"{name}: {path} not present, skipped")
            continue
        n = old = cut = 0
        needed: list[int] = []
        for text in texts(path):
            lines = text.split("\n")
            n += 1
            old += old_excerpt_whole(lines)
            calls = reads_needed(lines)
            if calls is None:
                cut += 1
            else:
                needed.append(calls)
        print(f"{name}: {n:,} documents")
        print(f"  old excerpt (120 lines / 8,000 chars) whole: {old / n:.2%}")
        for k in (1, 2, 4, 8):
            print(f"  read whole within {k} Read call(s): {sum(1 for c in needed if c <= k) / n:.2%}")
        print(f"  never whole (a line over 3,000 tokens): {cut / n:.2%}; most calls needed: {max(needed)}")


if __name__ == "__main__":
    main()
