"""Per-request DataLoaders: every key asked for in one tick of a GraphQL request becomes one named query.

Provenance queries are graph-shaped (item -> requirements -> statements -> sessions ...): resolving them field
by field would send one query per object (N+1). Here each level costs one query per relation, whatever the
number of objects at that level. Loaders live for one request only, so no answer outlives a write.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from strawberry.dataloader import DataLoader

from api.graph_reader import GraphReader

Row = dict[str, Any]
LineKey = tuple[str, int, int]


class Loaders:
    """The DataLoaders of one request, created on first use.

    `node(kind)` loads nodes by id through `cypher/api/nodes/<kind>.cypher` (rows `key`, `node`);
    `related(name)` loads lists through `cypher/api/rel/<name>.cypher` (rows `key` plus `node` and/or `rel`, in
    the query's order); `lines` loads the text of document line ranges.
    """

    def __init__(self, reader: GraphReader) -> None:
        self.reader = reader
        self._nodes: dict[str, DataLoader[str, Row | None]] = {}
        self._related: dict[str, DataLoader[str, list[Row]]] = {}
        self._lines: DataLoader[LineKey, Row | None] | None = None
        self._payloads: DataLoader[int, str | None] | None = None

    def node(self, kind: str) -> DataLoader[str, Row | None]:
        loader = self._nodes.get(kind)
        if loader is None:
            name = f"nodes/{kind}"

            async def load(ids: list[str]) -> list[Row | None]:
                found = {row["key"]: row["node"] for row in await self.reader.rows(name, ids=list(ids))}
                return [found.get(i) for i in ids]

            loader = self._nodes[kind] = DataLoader(load_fn=load)
        return loader

    def related(self, name: str) -> DataLoader[str, list[Row]]:
        loader = self._related.get(name)
        if loader is None:
            query = f"rel/{name}"

            async def load(ids: list[str]) -> list[list[Row]]:
                grouped: dict[str, list[Row]] = defaultdict(list)
                for row in await self.reader.rows(query, ids=list(ids)):
                    grouped[row["key"]].append(row)
                return [grouped.get(i, []) for i in ids]

            loader = self._related[name] = DataLoader(load_fn=load)
        return loader

    @property
    def lines(self) -> DataLoader[LineKey, Row | None]:
        """(doc_id, start_line, end_line) -> {n_lines, lines} or None when the document does not exist."""
        if self._lines is None:

            async def load(keys: list[LineKey]) -> list[Row | None]:
                spans = [
                    {"key": index, "doc_id": doc_id, "start_line": start, "end_line": end}
                    for index, (doc_id, start, end) in enumerate(keys)
                ]
                found = {row["key"]: row for row in await self.reader.rows("rel/document_lines", spans=spans)}
                return [found.get(index) for index in range(len(keys))]

            self._lines = DataLoader(load_fn=load)
        return self._lines

    @property
    def event_payloads(self) -> DataLoader[int, str | None]:
        """Event seq -> its payload as stored (JSON text); large payloads are only read when asked for."""
        if self._payloads is None:

            async def load(seqs: list[int]) -> list[str | None]:
                found = {row["seq"]: row["payload"] for row in await self.reader.rows("event_payloads", seqs=seqs)}
                return [found.get(seq) for seq in seqs]

            self._payloads = DataLoader(load_fn=load)
        return self._payloads
