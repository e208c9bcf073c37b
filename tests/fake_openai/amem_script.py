"""Scripted replies to A-MEM's two LLM requests (agentic_memory 0.2.6), recognised by the `json_schema` they ask
for: note construction (`keywords`, `context`, `tags`) and memory evolution (`should_evolve`, ...).

Construction: keywords are the note's first distinct content words, the context names them, tags are fixed
plus the first keyword. Evolution: deterministic from the prompt alone (so cached and resumed builds see the
same replies): the note whose prompt lists exactly `evolve_at_neighbours` neighbours evolves — it links to
its first neighbour (`strengthen`) and rewrites every neighbour's context and tags (`update_neighbor`); every
other note does not evolve.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.server import Reply

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_STOP = {
    "about", "after", "also", "because", "been", "before", "could", "does", "from", "have", "into", "just", "like",
    "more", "should", "some", "than", "that", "their", "them", "then", "there", "they", "this", "what", "when",
    "which", "will", "with", "would", "your", "user", "assistant",
}
# A-MEM lists neighbours as `memory_id:<id>\t...\tmemory context: ...\tmemory keywords: [...]\tmemory tags: [...]\n`
# (a note's content may span lines)
_NEIGHBOUR = re.compile(
    r"memory_id:(?P<id>[^\t]+)\t.*?\tmemory context: (?P<context>[^\t]*)\tmemory keywords: [^\t]*"
    r"\tmemory tags: (?P<tags>\[[^\n]*?\])\n",
    re.S,
)


def schema_properties(body: dict[str, Any]) -> dict[str, Any]:
    fmt = body.get("response_format") or {}
    return dict(((fmt.get("json_schema") or {}).get("schema") or {}).get("properties") or {})


def is_amem_request(body: dict[str, Any]) -> bool:
    props = schema_properties(body)
    return "should_evolve" in props or {"keywords", "context", "tags"} <= set(props)


def keywords_of(text: str, n: int = 3) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(text):
        w = word.lower().strip("'-")
        if w not in _STOP and w not in out:
            out.append(w)
        if len(out) == n:
            break
    return out or ["conversation"]


def _prompt(body: dict[str, Any]) -> str:
    return str((body.get("messages") or [{}])[-1].get("content") or "")


@dataclass
class AmemScript:
    """The responder (pass it to FakeOpenAI); `seen` counts the requests of each kind."""

    evolve_at_neighbours: int = 2
    seen: dict[str, int] = field(default_factory=lambda: {"analysis": 0, "evolution": 0, "evolved": 0})

    def __call__(self, body: dict[str, Any]) -> Reply:
        props = schema_properties(body)
        prompt = _prompt(body)
        if "should_evolve" in props:
            self.seen["evolution"] += 1
            return Reply.json(self.evolution(prompt))
        if "keywords" in props:
            self.seen["analysis"] += 1
            content = prompt.split("Content for analysis:", 1)[-1]
            words = keywords_of(content)
            context = f"The user talks about {', '.join(words)}."
            return Reply.json({"keywords": words, "context": context, "tags": ["personal", words[0]]})
        raise ValueError("not an A-MEM request")

    def evolution(self, prompt: str) -> dict[str, Any]:
        neighbours = [m.groupdict() for m in _NEIGHBOUR.finditer(prompt)]
        count = re.search(r"The number of neighbors is (\d+)", prompt)
        n = int(count.group(1)) if count else len(neighbours)
        if n != self.evolve_at_neighbours or not neighbours:
            return {
                "should_evolve": False, "actions": [], "suggested_connections": [], "tags_to_update": [],
                "new_context_neighborhood": [], "new_tags_neighborhood": [],
            }
        self.seen["evolved"] += 1
        tags = [list(ast.literal_eval(nb["tags"])) for nb in neighbours]
        return {
            "should_evolve": True,
            "actions": ["strengthen", "update_neighbor"],
            "suggested_connections": [neighbours[0]["id"]],
            "tags_to_update": ["personal", "linked"],
            "new_context_neighborhood": [f"{nb['context']} (evolved)" for nb in neighbours],
            "new_tags_neighborhood": [[*t, "evolved"] for t in tags],
        }


def prose_responder(body: dict[str, Any]) -> Reply:
    """A server that ignores `json_schema` and answers in prose."""
    return Reply.text("Sure! Here are some keywords: health, family, planning.")
