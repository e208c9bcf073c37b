"""Nodes and relationships around a node, level by level, within a node budget (for the graph browser)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api.errors import AmbiguousIdError, BadInputError, NotFoundError
from api.explore.captions import BROWSABLE_LABELS, caption_of, primary_label
from api.graph_reader import GraphReader
from api.redaction import redact_node

MAX_DEPTH = 2
MAX_LIMIT = 500
TEXT_CHARS = 600


@dataclass
class ViewNode:
    key: str
    label: str
    labels: list[str]
    props: dict[str, Any]
    redacted: list[str]
    depth: int

    @property
    def node_id(self) -> str:
        return str(self.props.get("id") or self.props.get("uuid") or self.key)

    @property
    def caption(self) -> str:
        return caption_of(self.label, self.props)


@dataclass
class ViewEdge:
    key: str
    type: str
    source: str
    target: str
    props: dict[str, Any]


@dataclass
class View:
    center: ViewNode
    nodes: list[ViewNode] = field(default_factory=list)
    edges: list[ViewEdge] = field(default_factory=list)
    truncated: bool = False


def _view_node(eid: str, labels: list[str], props: dict[str, Any], depth: int, gold_visible: bool) -> ViewNode:
    redacted: list[str] = []
    clean = {k: v for k, v in props.items() if v is not None}
    if not gold_visible:
        clean = redact_node(list(labels), clean, redacted)
    return ViewNode(eid, primary_label(labels), list(labels), clean, redacted, depth)


async def locate_node(reader: GraphReader, node_id: str, label: str | None, gold_visible: bool) -> ViewNode:
    """The node with this id (and label, when given); NotFoundError or AmbiguousIdError otherwise."""
    if not node_id:
        raise BadInputError("id must not be empty")
    if label is not None and label not in BROWSABLE_LABELS:
        raise BadInputError(f"unknown label {label!r}; choose one of {', '.join(BROWSABLE_LABELS)}")
    rows = await reader.rows("locate", id=node_id, text_chars=TEXT_CHARS)
    if label is not None:
        rows = [r for r in rows if label in r["labels"]]
    if not rows:
        where = f" with label {label}" if label else ""
        raise NotFoundError(f"no node with id {node_id!r}{where}")
    if len(rows) > 1:
        labels = sorted(primary_label(r["labels"]) for r in rows)
        raise AmbiguousIdError(f"id {node_id!r} names nodes with labels {', '.join(labels)}; pass `label`")
    row = rows[0]
    return _view_node(row["eid"], row["labels"], row["props"], 0, gold_visible)


async def build_neighborhood(
    reader: GraphReader,
    node_id: str,
    *,
    label: str | None = None,
    depth: int = 1,
    limit: int = 100,
    labels: list[str] | None = None,
    gold_visible: bool = False,
) -> View:
    """Breadth-first: every level expands the previous level's nodes; stops adding nodes at `limit`.

    Relationships are kept when both ends are in the view; `truncated` says some neighbour was left out.
    """
    if depth < 1 or depth > MAX_DEPTH:
        raise BadInputError(f"depth must be 1 or {MAX_DEPTH}, got {depth}")
    if limit < 1 or limit > MAX_LIMIT:
        raise BadInputError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    if labels is not None:
        unknown = [name for name in labels if name not in BROWSABLE_LABELS]
        if unknown:
            raise BadInputError(f"unknown label(s) {', '.join(unknown)}; choose from {', '.join(BROWSABLE_LABELS)}")
    center = await locate_node(reader, node_id, label, gold_visible)
    view = View(center=center, nodes=[center])
    included = {center.key}
    seen_edges: set[str] = set()
    frontier = [center.key]
    for level in range(1, depth + 1):
        if not frontier:
            break
        per_node = limit if level == 1 else max(10, limit // len(frontier))
        rows = await reader.rows("expand", eids=frontier, per_node=per_node + 1, labels=labels, text_chars=TEXT_CHARS)
        next_frontier: list[str] = []
        by_source: dict[str, int] = {}
        for row in rows:
            by_source[row["from_eid"]] = by_source.get(row["from_eid"], 0) + 1
            if by_source[row["from_eid"]] > per_node:
                view.truncated = True
                continue
            if row["eid"] not in included:
                if len(view.nodes) >= limit:
                    view.truncated = True
                    continue
                node = _view_node(row["eid"], row["labels"], row["props"], level, gold_visible)
                view.nodes.append(node)
                included.add(node.key)
                next_frontier.append(node.key)
            if row["rid"] in seen_edges:
                continue
            seen_edges.add(row["rid"])
            source, target = (row["from_eid"], row["eid"]) if row["outgoing"] else (row["eid"], row["from_eid"])
            view.edges.append(ViewEdge(row["rid"], row["type"], source, target, dict(row["rel"] or {})))
        frontier = next_frontier
    return view
