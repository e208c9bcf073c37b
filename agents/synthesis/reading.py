"""Reading a whole document the way the answering agent's Read tool returns it, for the blind solver, and the
text of the spans a profile's history exposed, for the final verifier.

`read_as_agent` pages through a document with the retriever's own Read (agents/tools, query/read_tool.py: at most
100 lines and 3,000 tokens a call), each page starting at the line after the previous one, as the Read tool's
note tells the agent to continue. The number of pages is bounded by `max_reads`, by default the agent's four tool
rounds with one Read each (agents/answerer.py Budget), so the blind solver never sees more of a document than an
agent reading it front to back could; a document longer than that is marked as not read whole.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from agents.synthesis.state import DocText
from agents.tools.definitions import MAX_READ_LINES
from query.retriever import Retriever

# Default pages of one document: Budget().max_tool_rounds (4) rounds, one Read of MAX_READ_LINES each.
DEFAULT_READS = 4
# What the verifier is shown of documents the history exposed: per document and in total, in characters.
HISTORY_CHARS_PER_DOC = 3000
HISTORY_CHARS_TOTAL = 12000


class ReadPage(BaseModel):
    """One Read: lines start_line..end_line, numbered as the Read tool numbers them."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    start_line: int
    end_line: int
    text: str


class AgentReading(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    doc_id: str
    title: str
    document_lines: int
    pages: list[ReadPage]
    whole_document: bool

    @property
    def lines_read(self) -> int:
        return self.pages[-1].end_line if self.pages else 0


def read_as_agent(retriever: Retriever, doc: DocText, max_reads: int = DEFAULT_READS) -> AgentReading:
    """Read `doc` from line 1, page after page, with the agent's Read limits (at most `max_reads` pages). A
    line longer than the token limit comes back cut, as the agent gets it; the reading is then not whole."""
    pages: list[ReadPage] = []
    start, total, title, cut = 1, len(doc.lines), doc.title, False
    while len(pages) < max_reads and start <= total:
        result = retriever.read(doc.doc_id, start, MAX_READ_LINES)
        title, total = result.title, result.doc_lines or total
        cut = cut or any(
            line != doc.lines[result.start_line + i - 1]
            for i, line in enumerate(result.lines)
            if result.start_line + i - 1 < len(doc.lines)
        )
        numbered = "\n".join(f"{result.start_line + i}: {line}" for i, line in enumerate(result.lines))
        pages.append(ReadPage(start_line=result.start_line, end_line=result.end_line, text=numbered))
        start = result.end_line + 1
    whole = bool(pages) and pages[-1].end_line >= total and not cut
    return AgentReading(doc_id=doc.doc_id, title=title, document_lines=total, pages=pages, whole_document=whole)


class ExposedText(BaseModel):
    """What the history showed of one document: the lines of every exposed span, merged, within limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    doc_id: str
    title: str
    spans: list[str]
    text: str
    cut: bool


def merge_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def exposed_texts(
    docs: dict[str, tuple[str, tuple[str, ...]]],
    spans: dict[str, list[tuple[int, int]]],
    per_doc: int = HISTORY_CHARS_PER_DOC,
    total: int = HISTORY_CHARS_TOTAL,
) -> list[ExposedText]:
    """Per exposed document (id order): the numbered lines of its merged exposed spans, at most `per_doc`
    characters each and `total` over all; `cut` says a limit left something out."""
    out: list[ExposedText] = []
    left = total
    for doc_id in sorted(spans):
        title, lines = docs.get(doc_id, ("", ()))
        merged = [(s, min(e, len(lines))) for s, e in merge_spans(spans[doc_id]) if s <= len(lines)]
        parts: list[str] = []
        used, cut = 0, False
        budget = min(per_doc, left)
        for start, end in merged:
            for number in range(start, min(end, len(lines)) + 1):
                line = f"{number}: {lines[number - 1]}"
                if used + len(line) + 1 > budget:
                    cut = True
                    break
                parts.append(line)
                used += len(line) + 1
            if cut:
                break
        left -= used
        out.append(
            ExposedText(
                doc_id=doc_id,
                title=title,
                spans=[f"{s}-{e}" for s, e in merged],
                text="\n".join(parts),
                cut=cut,
            )
        )
    return out
