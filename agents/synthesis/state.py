"""Reads of the graph shared by the stages (named Cypher files in cypher/synthesis/)."""

from __future__ import annotations

from dataclasses import dataclass

from agents.synthesis.context import WEB_SOURCE, SynthContext, kb_source_list
from agents.synthesis.errors import UnknownReferenceError


@dataclass(frozen=True)
class DocText:
    doc_id: str
    title: str
    lines: tuple[str, ...]

    def excerpt(self, start: int = 1, max_lines: int = 40, max_chars: int = 4000) -> str:
        """Lines from `start` (numbered from 1), each prefixed with its number, within the limits."""
        out: list[str] = []
        used = 0
        for number in range(start, min(len(self.lines), start + max_lines - 1) + 1):
            line = f"{number}: {self.lines[number - 1]}"
            if used + len(line) > max_chars and out:
                break
            out.append(line)
            used += len(line) + 1
        return "\n".join(out)


def closed_subjects(ctx: SynthContext, stage: str) -> dict[str, str]:
    """subject -> final outcome, for the units of `stage` already closed in the log."""
    rows = ctx.query("closed_subjects", synthesis_id=ctx.synthesis_id, stage=stage)
    return {str(r["subject"]): str(r["outcome"]) for r in rows}


def kb_doc_ids(ctx: SynthContext, *, with_web: bool = True) -> list[str]:
    """The frozen KB's document ids (with the pages the web stage added unless `with_web` is False); an unknown
    source or an empty KB is an error naming what exists."""
    sources = list(ctx.config.kb_sources)
    if sources:
        present = {str(r["source"]): int(r["n"]) for r in ctx.query("kb_sources")}
        missing = [s for s in sources if s not in present]
        if missing:
            known = ", ".join(f"{s or '(none)'} ({n})" for s, n in present.items()) or "none"
            raise UnknownReferenceError(f"KB source(s) {', '.join(missing)} not in the graph; sources are: {known}")
    rows = ctx.query("kb_doc_ids", sources=list(kb_source_list(ctx.config)))
    ids = [str(r["doc_id"]) for r in rows if with_web or r["source"] != WEB_SOURCE or WEB_SOURCE in sources]
    if not ids:
        raise UnknownReferenceError("the knowledge base is empty: ingest documents first (./colabench ingest ...)")
    return ids


def documents(ctx: SynthContext, doc_ids: list[str]) -> dict[str, DocText]:
    rows = ctx.query("documents", doc_ids=doc_ids)
    return {
        str(r["doc_id"]): DocText(str(r["doc_id"]), str(r["title"] or ""), tuple(str(r["text"] or "").split("\n")))
        for r in rows
    }


def linked_from(ctx: SynthContext, doc_ids: list[str]) -> dict[str, set[str]]:
    return {str(r["doc_id"]): set(r["linked"]) for r in ctx.query("doc_links_from", doc_ids=doc_ids)}
