"""Short human-readable captions of nodes, per label, for lists and the graph view."""

from __future__ import annotations

from typing import Any

CAPTION_CHARS = 80

# Labels the browser shows, in priority order when a node carries several.
BROWSABLE_LABELS = (
    "Item",
    "Requirement",
    "Profile",
    "Fact",
    "Topic",
    "Session",
    "Turn",
    "Document",
    "Chunk",
    "Memory",
    "State",
    "Run",
    "Attempt",
    "ToolCall",
    "Judgment",
    "Adjudication",
)


def primary_label(labels: list[str]) -> str:
    for label in BROWSABLE_LABELS:
        if label in labels:
            return label
    return labels[0] if labels else "Node"


def shorten(text: str) -> str:
    """One line of at most CAPTION_CHARS characters."""
    text = " ".join(text.split())
    return text if len(text) <= CAPTION_CHARS else text[: CAPTION_CHARS - 1] + "…"


def caption_of(label: str, props: dict[str, Any]) -> str:
    """What a person needs to recognise the node: a question, a title, the first words of a text."""
    node_id = str(props.get("id") or props.get("uuid") or "")
    if label == "Item":
        return shorten(str(props.get("question") or node_id))
    if label == "Turn":
        who = props.get("speaker") or props.get("role") or "turn"
        return shorten(f"{who}: {props.get('text') or ''}")
    if label == "Chunk":
        return f"{props.get('doc_id')} lines {props.get('start_line')}-{props.get('end_line')}"
    if label == "Session":
        started = props.get("started_at")
        return f"{node_id} ({started})" if started else node_id
    if label == "Profile":
        return shorten(str(props.get("name") or node_id))
    if label == "ToolCall":
        return f"round {props.get('round')} {props.get('tool')}"
    if label == "Judgment":
        return shorten(f"{props.get('kind')}: {props.get('verdict') or props.get('score')}")
    if label == "Adjudication":
        return shorten(f"adjudicated {props.get('verdict')} by {props.get('adjudicator')}")
    if label == "Run":
        return shorten(f"{props.get('method')} run {node_id}")
    for key in ("title", "text", "name"):
        if props.get(key):
            return shorten(str(props[key]))
    return node_id
