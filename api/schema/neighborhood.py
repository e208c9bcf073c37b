"""Neighborhood: the nodes and relationships around a node, shaped for a graph view."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from api.explore.neighborhood import View, ViewEdge, ViewNode
from api.schema.values import to_json


@strawberry.type(description="A node of a graph view: `key` is unique in the view, `id` is the node's domain id.")
class GraphNode:
    key: str
    id: str
    label: str = strawberry.field(description="the node's main label (Item, Requirement, Turn, Document ...)")
    labels: list[str]
    caption: str
    depth: int = strawberry.field(description="hops from the centre of the view")
    properties: JSON = strawberry.field(description="stored properties; long texts cut to 600 characters")
    redacted_fields: list[str] = strawberry.field(description="gold properties hidden from this request")

    @classmethod
    def from_view(cls, node: ViewNode) -> GraphNode:
        return cls(
            key=node.key,
            id=node.node_id,
            label=node.label,
            labels=node.labels,
            caption=node.caption,
            depth=node.depth,
            properties=to_json(node.props),
            redacted_fields=node.redacted,
        )


@strawberry.type(description="A relationship of a graph view, from `source` to `target` (node keys).")
class GraphEdge:
    key: str
    type: str
    source: str
    target: str
    properties: JSON

    @classmethod
    def from_view(cls, edge: ViewEdge) -> GraphEdge:
        return cls(key=edge.key, type=edge.type, source=edge.source, target=edge.target, properties=to_json(edge.props))


@strawberry.type(description="Nodes and relationships within `depth` hops of a node, at most `limit` nodes.")
class Neighborhood:
    center: GraphNode
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    truncated: bool = strawberry.field(description="true when neighbours were left out to respect the limit")

    @classmethod
    def from_view(cls, view: View) -> Neighborhood:
        return cls(
            center=GraphNode.from_view(view.center),
            nodes=[GraphNode.from_view(n) for n in view.nodes],
            edges=[GraphEdge.from_view(e) for e in view.edges],
            truncated=view.truncated,
        )
