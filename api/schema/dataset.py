"""Dataset: a name the graph holds data of (from its ingests), with how many profiles and items it has."""

from __future__ import annotations

from typing import Any

import strawberry


@strawberry.type(description="A dataset in the graph: its profiles and items, and whether its ingest completed.")
class Dataset:
    name: str
    profiles: int
    items: int
    complete: bool = strawberry.field(description="false while an ingest of it is in progress or was interrupted")

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Dataset:
        return cls(
            name=str(row["name"]),
            profiles=int(row["profiles"]),
            items=int(row["items"]),
            complete=bool(row["complete"]),
        )
