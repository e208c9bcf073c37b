"""A scripted responder for Graphiti's prompts (graphiti_core/prompts), recognised by the response schema
name the project's Graphiti client sends (`response_format.json_schema.name`, else the schema title Graphiti
writes into the prompt). Deterministic, derived only from the request:

- entities (ExtractedEntities): the speaker `user` and one noun phrase of the user turn (its longest word);
- node dedupe (NodeResolutions / NodeDuplicate): an entity is a duplicate of an existing one of the same name;
- edges (ExtractedEdges): one edge per pair, user -> noun phrase, whose fact is the user turn's text;
- edge dedupe (EdgeDuplicate): an existing fact with the very same text is a duplicate; nothing contradicts;
- summaries and timestamps: short fixed texts, no dates.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from tests.fake_openai.server import Reply

STOP = {"about", "would", "could", "should", "there", "their", "which", "what", "when", "have", "this", "that"}


class GraphitiScript:
    """responder(body) -> Reply; `seen` counts requests by schema name; `unknown` keeps unrecognised ones.
    `fail_once(name, skip)` makes one request of that schema fail (HTTP 500, as a server outage would), after
    letting `skip` more of them through."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.unknown: list[dict[str, Any]] = []
        self._fail: dict[str, int] = {}

    def fail_once(self, name: str, skip: int = 0) -> None:
        self._fail[name] = skip

    def __call__(self, body: dict[str, Any]) -> Reply:
        name = schema_name(body)
        self.seen[name] += 1
        if name in self._fail:
            if self._fail[name] == 0:
                del self._fail[name]
                raise RuntimeError(f"scripted outage on {name}")
            self._fail[name] -= 1
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        handler = HANDLERS.get(name)
        if handler is None:
            self.unknown.append(body)
            return Reply.json({})
        return Reply.json(handler(prompt))


def schema_name(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return str(fmt["json_schema"]["name"])
    last = str((body.get("messages") or [{}])[-1].get("content") or "")
    match = re.search(r'"title":\s*"(\w+)"\s*,\s*"type":\s*"object"\s*}\s*$', last)
    return match.group(1) if match else "?"


def _between(text: str, tag: str) -> str:
    match = re.search(rf"<{tag}>\s*(.*?)\s*</{tag}>", text, re.S)
    return match.group(1) if match else ""


def _user_text(prompt: str) -> str:
    """The user turns of the episode (`user: ...` up to the next speaker line), joined by newlines."""
    message = _between(prompt, "CURRENT MESSAGE") or _between(prompt, "CURRENT_MESSAGE")
    parts = re.split(r"^(user|assistant): ", message, flags=re.M)
    # parts: [before, speaker, text, speaker, text, ...]
    return "\n".join(parts[i + 1].strip() for i in range(1, len(parts) - 1, 2) if parts[i] == "user")


def noun_phrase(user_text: str) -> str:
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]+", user_text) if w.lower() not in STOP]
    return max(words, key=len).lower() if words else "topic"


def extracted_entities(prompt: str) -> dict[str, Any]:
    entities = [{"name": "user", "entity_type_id": 0, "episode_indices": [0]}]
    text = _user_text(prompt)
    if text:
        entities.append({"name": noun_phrase(text), "entity_type_id": 0, "episode_indices": [0]})
    return {"extracted_entities": entities}


def _json_list(text: str) -> list[dict[str, Any]]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return []
    return value if isinstance(value, list) else []


def node_resolutions(prompt: str) -> dict[str, Any]:
    extracted = _json_list(_between(prompt, "ENTITIES"))
    existing = _json_list(_between(prompt, "EXISTING ENTITIES"))
    by_name = {str(e.get("name", "")).lower(): e.get("candidate_id", -1) for e in existing}
    out = []
    for index, entity in enumerate(extracted):
        name = str(entity.get("name", ""))
        out.append(
            {
                "id": entity.get("id", index),
                "name": name,
                "duplicate_candidate_id": by_name.get(name.lower(), -1),
            }
        )
    return {"entity_resolutions": out}


def extracted_edges(prompt: str) -> dict[str, Any]:
    text = _user_text(prompt)
    if not text:
        return {"edges": []}
    return {
        "edges": [
            {
                "source_entity_name": "user",
                "target_entity_name": noun_phrase(text),
                "relation_type": "TALKED_ABOUT",
                "fact": text,
                "valid_at": None,
                "invalid_at": None,
                "episode_indices": [0],
            }
        ]
    }


def edge_duplicate(prompt: str) -> dict[str, Any]:
    new_fact = _between(prompt, "NEW FACT")
    existing = _between(prompt, "EXISTING FACTS")
    duplicates = []
    for match in re.finditer(r"\{[^{}]*\}", existing):
        try:
            item = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(item, dict) and item.get("fact") and item["fact"] in new_fact:
            duplicates.append(item.get("idx", 0))
    return {"duplicate_facts": duplicates, "contradicted_facts": []}


def summarized_entities(prompt: str) -> dict[str, Any]:
    return {"summaries": []}


HANDLERS = {
    "ExtractedEntities": extracted_entities,
    "NodeResolutions": node_resolutions,
    "NodeDuplicate": lambda p: {"id": 0, "name": "", "duplicate_candidate_id": -1},
    "ExtractedEdges": extracted_edges,
    "EdgeDuplicate": edge_duplicate,
    "SummarizedEntities": summarized_entities,
    "EntitySummary": lambda p: {"summary": "Mentioned in the conversation."},
    "Summary": lambda p: {"summary": "Mentioned in the conversation."},
    "SummaryDescription": lambda p: {"description": "A short summary."},
    "EdgeTimestamps": lambda p: {"valid_at": None, "invalid_at": None},
    "BatchEdgeTimestamps": lambda p: {"timestamps": []},
}
