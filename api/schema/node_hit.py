"""NodeHit: a node found by the browser's search box."""

from __future__ import annotations

import strawberry

from api.explore.node_search import Hit


@strawberry.type(description="A node matching a search: by id (exact or prefix) or by the words of its text.")
class NodeHit:
    key: str
    id: str
    label: str
    labels: list[str]
    caption: str
    score: float
    matched: str = strawberry.field(description="`id` or `text`")

    @classmethod
    def from_hit(cls, hit: Hit) -> NodeHit:
        return cls(
            key=hit.key,
            id=hit.node_id,
            label=hit.label,
            labels=hit.labels,
            caption=hit.caption,
            score=hit.score,
            matched=hit.matched,
        )
