"""A-MEM's memory response: the top-k notes by cosine, expanded through their links, capped in tokens.

As A-MEM's `search_agentic`: the k best notes, then the notes they link to (each hit's links in order, at most
k neighbours in all), deduplicated in retrieval order. As the paper's A-MEM setting: each note is included
whole, in that order, until the next one would push the serialised response (the memory_search tool's JSON:
`{"memories": [{"memory_id", "text", "source_turn_ids"}, ...]}`) past 5,120 tokens; the response stops there
(a later, smaller note never overtakes an earlier one). Tokens are the run's counter's (query/tokens.py: the
answering model's tokenizer, or the named WordPiece fallback). WordPiece splits at punctuation, so the JSON's
count is the sum of its parts; any other counter counts the serialised response itself (one count when every
note fits, else a binary search over how many do).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graph.cypher_files import load_cypher
from query.memory_channels import MemoryChannels, RankedCard
from query.recipes import Recipe
from query.results import MemoryHit
from query.tokens import WORDPIECE, TokenCounter, WordPieceCounter, count_tokens, longest_fitting_prefix


@dataclass(frozen=True)
class LinkExpandedResponse:
    token_cap: int = 5120

    def respond(
        self,
        channels: MemoryChannels,
        ranked: Sequence[RankedCard],
        k: int,
        make_hits: Callable[[list[RankedCard]], list[MemoryHit]],
        notes: list[str],
        counter: TokenCounter = WORDPIECE,
    ) -> list[MemoryHit]:
        order = self.expand(channels, ranked, k)
        hits = make_hits(order)
        kept = self.cap(hits, counter)
        if len(kept) < len(hits):
            notes.append(
                f"memory response capped at {self.token_cap} tokens: {len(kept)} of {len(hits)} notes returned "
                "(notes are never cut)"
            )
        return kept

    def expand(self, channels: MemoryChannels, ranked: Sequence[RankedCard], k: int) -> list[RankedCard]:
        top = list(ranked[:k])
        visible = {rc.card.memory_id: rc for rc in ranked}
        links = note_links(channels, [rc.card.memory_id for rc in top])
        order = list(top)
        seen = {rc.card.memory_id for rc in top}
        added = 0
        for rc in top:
            for link in links.get(rc.card.memory_id, []):
                if added >= k:
                    break
                if link in visible and link not in seen:
                    order.append(visible[link])
                    seen.add(link)
                    added += 1
        return order

    def cap(self, hits: list[MemoryHit], counter: TokenCounter = WORDPIECE) -> list[MemoryHit]:
        entries = [
            json.dumps(
                {"memory_id": h.memory_id, "text": h.text, "source_turn_ids": h.source_turn_ids}, ensure_ascii=False
            )
            for h in hits
        ]
        if not isinstance(counter, WordPieceCounter):

            def fits(n: int) -> bool:
                body = '{"memories": [' + ", ".join(entries[:n]) + "]}"
                return counter.count([body])[0] <= self.token_cap

            return hits[: longest_fitting_prefix(len(hits), fits)]
        envelope, comma = count_tokens([json.dumps({"memories": []}), ","])
        sizes = count_tokens(entries)
        total = envelope
        kept: list[MemoryHit] = []
        for hit, size in zip(hits, sizes, strict=True):
            extra = size + (comma if kept else 0)
            if total + extra > self.token_cap:
                break
            kept.append(hit)
            total += extra
        return kept


def note_links(channels: MemoryChannels, memory_ids: list[str]) -> dict[str, list[str]]:
    """memory id -> the memory ids its note links to (from the note's recorded metadata)."""
    if not memory_ids:
        return {}
    with channels.driver.session(database=channels.database) as session:
        rows = list(session.run(load_cypher("memory/amem_links"), memory_ids=memory_ids))
    out: dict[str, list[str]] = {}
    for r in rows:
        meta = json.loads(r["metadata"]) if r["metadata"] else {}
        out[r["memory_id"]] = [str(x) for x in meta.get("links") or []]
    return out


# a recipe's `memory_response` -> how its memory response is shaped ("top_k": the top k cards, no shaper)
RESPONSES: dict[str, LinkExpandedResponse] = {"link_expanded": LinkExpandedResponse()}


def memory_response(recipe: Recipe) -> LinkExpandedResponse | None:
    """The shaper the recipe declares (None: its top k cards are the response)."""
    return RESPONSES.get(recipe.memory_response)
