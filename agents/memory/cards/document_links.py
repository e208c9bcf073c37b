"""Memory-document links (MemKB): for each card, its offline semantic neighbours and its history reads.

Neighbours: the knowledge base (the retriever's corpus) is searched with the card text plus the titles and
read snippets of the card's history reads (query.memory.history_reads); the top `N_NEIGHBORS` documents
not exposed anywhere in the profile's public history (searched or read) become `neighbor` links, ranks
1..20 by cosine. Then every resolved history read becomes a `history_read` link, ranks 1.. in history order.
Retrieval lists neighbours first, each list in its own order. Reads naming no document are counted in
`unresolved_history_reads` and give no link. One MemoryLinked event per card (it replaces earlier links of
the same builder; re-linking an unchanged card appends nothing, since its event is identical).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from graph.cypher_files import load_cypher
from graph.events import MemoryLinked, MemoryLinkSpec, NewEvent
from graph.store import EventStore
from query.corpus import Corpus
from query.memory.history_reads import CardReads, card_history_reads
from query.memory.profiles import require_profiles
from query.retriever import Retriever

LINK_BUILDER = "memkb-links/v1"
ACTOR = "memory:links"
N_NEIGHBORS = 20
# Card text plus read titles and snippets; the encoder truncates long inputs anyway (256 word pieces).
MAX_QUERY_CHARS = 2000


def link_query_text(card_text: str, reads: CardReads) -> str:
    """What a card's neighbours are searched with: its text, then each history read's title and snippet."""
    parts = [card_text.strip()]
    for read in reads.reads:
        parts.append(f"{read.title}: {read.snippet}" if read.snippet else read.title)
    return "\n".join(p for p in parts if p)[:MAX_QUERY_CHARS]


def build_document_links(
    store: EventStore,
    retriever: Retriever,
    system: str = "raw_turns",
    profile_id: str | None = None,
    *,
    profile_ids: list[str] | None = None,
    corpus: Corpus | None = None,
    batch_size: int = 200,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Link every card of `system` that has no links from this builder yet, or whose links are older than
    its text or than a later assistant turn of its session. Resumable: each batch is committed.

    Returns counts: cards_linked (events appended), cards_unchanged, neighbor_links, history_read_links,
    unresolved_history_reads."""
    corpus = corpus or retriever.default_corpus
    require_profiles(store, [profile_id, *(profile_ids or [])])
    with store.driver.session(database=store.database) as session:
        cards = list(
            session.run(
                load_cypher("memory/cards_needing_links"),
                system=system,
                profile_id=profile_id,
                profile_ids=profile_ids,
                builder=LINK_BUILDER,
            )
        )
    counts = {
        "cards_linked": 0,
        "cards_unchanged": 0,
        "neighbor_links": 0,
        "history_read_links": 0,
        "unresolved_history_reads": 0,
    }
    if progress:
        progress(0, len(cards))
    exposed = _exposed_by_profile(store, sorted({c["profile_id"] for c in cards}))
    with ThreadPoolExecutor(max_workers=2) as pool:
        for start in range(0, len(cards), batch_size):
            batch = cards[start : start + batch_size]
            memory_ids = [c["memory_id"] for c in batch]
            found = card_history_reads(store.driver, store.database, memory_ids)
            reads = [found[memory_id] for memory_id in memory_ids]
            vectors = retriever.encoder.encode(
                [link_query_text(c["text"] or "", r) for c, r in zip(batch, reads, strict=True)]
            )
            seen = [exposed.get(c["profile_id"], set()) for c in batch]
            events = list(pool.map(partial(_link_event, retriever, corpus), memory_ids, vectors, reads, seen))
            for event in events:
                payload = event.event
                assert isinstance(payload, MemoryLinked)
                counts["neighbor_links"] += sum(1 for link in payload.links if link.kind == "neighbor")
                counts["history_read_links"] += sum(1 for link in payload.links if link.kind == "history_read")
                counts["unresolved_history_reads"] += payload.unresolved_history_reads
            result = store.append(events)
            counts["cards_linked"] += result.appended
            counts["cards_unchanged"] += result.skipped
            if progress:
                progress(min(start + batch_size, len(cards)), len(cards))
    return counts


def _exposed_by_profile(store: EventStore, profile_ids: Sequence[str]) -> dict[str, set[str]]:
    if not profile_ids:
        return {}
    with store.driver.session(database=store.database) as session:
        rows = session.run(load_cypher("memory/profile_exposed_documents"), profile_ids=list(profile_ids))
        return {r["profile_id"]: set(r["doc_ids"]) for r in rows}


def _link_event(
    retriever: Retriever, corpus: Corpus, memory_id: str, vector: np.ndarray, reads: CardReads, exposed: set[str]
) -> NewEvent:
    depth = N_NEIGHBORS + len(exposed)
    run = retriever.knowledge.semantic(vector, corpus, depth=depth, chunks=4 * depth)
    neighbours = [c for c in run.candidates if c.doc_id not in exposed][:N_NEIGHBORS]
    links = [
        MemoryLinkSpec(doc_id=c.doc_id, kind="neighbor", rank=rank, score=round(c.score, 6))
        for rank, c in enumerate(neighbours, start=1)
    ]
    links += [
        MemoryLinkSpec(doc_id=read.doc_id, kind="history_read", rank=rank)
        for rank, read in enumerate(reads.reads, start=1)
    ]
    return NewEvent(
        MemoryLinked(
            memory_id=memory_id,
            builder=LINK_BUILDER,
            links=links,
            unresolved_history_reads=len(reads.unresolved),
        ),
        ACTOR,
    )
