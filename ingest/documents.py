"""Knowledge-base documents -> DocumentIngested + DocumentChunked events (shared by every adapter)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graph.events import DocumentChunked, DocumentIngested, DomainEvent
from ingest.chunking import DEFAULT_MAX_CHARS, chunk_document, chunker_id

# Fields of a knowledge-base record that become first-class document properties; the rest is metadata.
_CORE_FIELDS = ("doc_id", "title", "text", "url", "source", "collection", "publisher")


def document_events(record: dict[str, Any], max_chars: int = DEFAULT_MAX_CHARS) -> list[DomainEvent]:
    """The two events of one document. The same record always gives the same events (same ids)."""
    metadata = {k: v for k, v in record.items() if k not in _CORE_FIELDS and k != "metadata" and v is not None}
    metadata.update(record.get("metadata") or {})
    ingested = DocumentIngested(
        doc_id=record["doc_id"],
        title=record.get("title") or record["doc_id"],
        text=record["text"],
        url=record.get("url"),
        source=record.get("source"),
        collection=record.get("collection"),
        publisher=record.get("publisher"),
        metadata=metadata,
    )
    chunked = DocumentChunked(
        doc_id=record["doc_id"],
        chunker=chunker_id(max_chars),
        chunks=chunk_document(record["doc_id"], record["text"], max_chars),
    )
    return [ingested, chunked]


def documents_events(records: Iterable[dict[str, Any]], max_chars: int = DEFAULT_MAX_CHARS) -> list[DomainEvent]:
    """Events of many documents: every DocumentIngested first, then every DocumentChunked, so that a
    batch projects through two UNWIND statements rather than two per document."""
    pairs = [document_events(record, max_chars) for record in records]
    return [pair[0] for pair in pairs] + [pair[1] for pair in pairs]


def line_count(text: str) -> int:
    return text.count("\n") + 1
