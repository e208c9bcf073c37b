"""List parameters whose repr is their length.

The Neo4j driver (6.4, `Bolt5x5.run`) formats every RUN's parameters with repr for its debug log before it
knows whether that log is on; for a projection's rows that cost about as much as packing them. A list
parameter wrapped in `QuietList` is packed like any list and formats as `<N items>`.
"""

from __future__ import annotations

from typing import Any


class QuietList(list[Any]):
    """A list that packs as itself and formats as its length."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} items>"
