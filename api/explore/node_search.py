"""Find nodes by id (exact or prefix) and by the words of their texts, for the browser's search box."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

from api.errors import BadInputError
from api.explore.captions import primary_label, shorten
from api.graph_reader import GraphReader
from api.redaction import GOLD_FIELDS

MAX_HITS = 100
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    key: str
    node_id: str
    label: str
    labels: list[str]
    caption: str
    score: float
    matched: str


def plain_terms(text: str) -> str:
    """The words of `text` only, lower-cased: Lucene operators, wildcards and field syntax cannot get through."""
    return " ".join(word.lower() for word in _WORD.findall(text))[:500]


async def find_nodes(reader: GraphReader, text: str, limit: int = 20, gold_visible: bool = False) -> list[Hit]:
    """Id matches first (exact, then prefix), then full-text matches by score; each node once.

    Without `gold_visible`, gold texts (requirements') are neither searched nor shown: such nodes are found by
    id only, captioned with their id."""
    text = text.strip()
    if not text:
        raise BadInputError("the search text must not be empty")
    if len(text) > 500:
        raise BadInputError("the search text must be at most 500 characters")
    if limit < 1 or limit > MAX_HITS:
        raise BadInputError(f"limit must be between 1 and {MAX_HITS}, got {limit}")
    terms = plain_terms(text)
    by_id_task = reader.rows("find_by_id", id=text, limit=limit)
    if terms:
        by_text_task = reader.rows("find_by_text", query=terms, limit=limit, gold_visible=gold_visible)
        by_id, by_text = await asyncio.gather(by_id_task, by_text_task)
    else:
        by_id, by_text = await by_id_task, []
    hits: dict[str, Hit] = {}
    for rows, matched in ((by_id, "id"), (by_text, "text")):
        for row in rows:
            if row["eid"] in hits or row["id"] is None:
                continue
            label = primary_label(row["labels"])
            gold_caption = not gold_visible and (
                any(name in GOLD_FIELDS for name in row["labels"]) or bool(row.get("gold_text"))
            )
            caption = shorten(str(row["id"] if gold_caption else row["caption"] or row["id"]))
            hits[row["eid"]] = Hit(
                row["eid"], row["id"], label, list(row["labels"]), caption, float(row["score"]), matched
            )
    return list(hits.values())[:limit]
