"""Which documents a knowledge search may return: a filter on the Document nodes of the graph.

Several datasets can share one graph (a bundle's documents, iKAT passages, the full knowledge base), so a
search names its corpus. An empty filter means every document in the graph.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Corpus(BaseModel):
    """A document filter; the conditions that are set must all hold (an unset one does not filter).

    `sources`: Document.source is one of these; `doc_id_prefixes`: the id starts with one of these;
    `doc_ids`: the id is one of these (e.g. the documents of one bundle).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    sources: tuple[str, ...] | None = None
    doc_id_prefixes: tuple[str, ...] | None = None
    doc_ids: tuple[str, ...] | None = Field(default=None, repr=False)
    label: str | None = None

    @property
    def is_everything(self) -> bool:
        return self.sources is None and self.doc_id_prefixes is None and self.doc_ids is None

    def cypher_params(self) -> dict[str, Any]:
        """The `$sources`, `$prefixes`, `$doc_ids` parameters every corpus-filtered Cypher file takes."""
        return {
            "sources": list(self.sources) if self.sources is not None else None,
            "prefixes": list(self.doc_id_prefixes) if self.doc_id_prefixes is not None else None,
            "doc_ids": list(self.doc_ids) if self.doc_ids is not None else None,
        }

    def describe(self) -> str:
        if self.label:
            return self.label
        if self.is_everything:
            return "every document in the graph"
        parts = []
        if self.sources is not None:
            parts.append(f"source in {list(self.sources)}")
        if self.doc_id_prefixes is not None:
            parts.append(f"id prefix in {list(self.doc_id_prefixes)}")
        if self.doc_ids is not None:
            parts.append(f"{len(self.doc_ids)} listed ids")
        return " and ".join(parts)

    def cache_key(self) -> tuple[Any, ...]:
        return (self.sources, self.doc_id_prefixes, self.doc_ids)


EVERYTHING = Corpus()
