"""A scripted memory judge for the fake OpenAI server: it recognises the memory judges' requests by their
schema title and decides by word overlap, so tests can compute the expected verdicts by hand.

- integrity: the share of the expected point's content words (4+ letters) found in the best-matching listed
  memory: >= 0.8 scores 2, >= 0.4 scores 1, else 0; it cites that memory when the score is above 0.
- accuracy: the share of the memory's content words found in the gold facts: >= 0.8 scores 2 (in gold),
  >= 0.4 scores 1 (in gold); else found in the source turns >= 0.8 scores 2 (not in gold); else 0 (not in gold).
- update: correct when some memory holds >= 0.8 of the newer version's words, else omission.
A target whose text contains one of `invalid_when` gets a reply that is not JSON, every time (an invalid
judge reply after every retry). Other requests go to `fallback`, or fail."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.policy import schema_title
from tests.fake_openai.server import Reply

TITLES = {"MemoryIntegrityOut", "MemoryAccuracyOut", "MemoryUpdateOut"}
_ITEM = re.compile(r"^- \[([^\]]+)\] (.*)$", re.MULTILINE)


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9']+", text.lower()) if len(w) >= 4}


def share(part: str, whole: str) -> float:
    wanted = words(part)
    return len(wanted & words(whole)) / len(wanted) if wanted else 0.0


def _section(prompt: str, heading: str) -> str:
    start = prompt.find(f"## {heading}")
    if start < 0:
        return ""
    body = prompt[start:].split("\n", 1)[1] if "\n" in prompt[start:] else ""
    end = body.find("\n## ")
    return (body if end < 0 else body[:end]).strip()


@dataclass
class MemoryQualityScript:
    fallback: Callable[[dict[str, Any]], Reply] | None = None
    invalid_when: tuple[str, ...] = ()
    requests: dict[str, int] = field(default_factory=dict)

    def __call__(self, body: dict[str, Any]) -> Reply:
        title = schema_title(body)
        if title not in TITLES:
            if self.fallback is None:
                raise AssertionError(f"not a memory judge request (schema {title!r})")
            return self.fallback(body)
        assert title is not None
        self.requests[title] = self.requests.get(title, 0) + 1
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages", []) if m.get("role") == "user")
        target = (
            _section(prompt, "Expected memory point")
            or _section(prompt, "The memory to check")
            or _section(prompt, "Newer version (current)")
        )
        if any(marker in target for marker in self.invalid_when):
            return Reply.text("I would rather not answer in JSON.")
        if title == "MemoryIntegrityOut":
            return Reply.json(self.integrity(target, _ITEM.findall(_section(prompt, "Memories the system stored"))))
        if title == "MemoryUpdateOut":
            memories = _ITEM.findall(_section(prompt, "Memories the system holds now"))
            best = max(memories, key=lambda m: share(target, m[1]), default=None)
            ok = best is not None and share(target, best[1]) >= 0.8
            return Reply.json(
                {
                    "reason": "scripted",
                    "category": "correct" if ok else "omission",
                    "cited_memory_ids": [best[0]] if ok and best else [],
                }
            )
        gold = _ITEM.findall(_section(prompt, "The user's annotated facts (gold)"))
        turns = _section(prompt, "Conversation turns the memory was made from")
        return Reply.json(self.accuracy(target, gold, turns))

    @staticmethod
    def integrity(point: str, memories: list[tuple[str, str]]) -> dict[str, Any]:
        best = max(memories, key=lambda m: share(point, m[1]), default=None)
        value = share(point, best[1]) if best else 0.0
        score = 2 if value >= 0.8 else 1 if value >= 0.4 else 0
        return {
            "reason": f"scripted: {value:.2f} of the point's words",
            "score": score,
            "cited_memory_ids": [best[0]] if best and score else [],
        }

    @staticmethod
    def accuracy(memory: str, gold: list[tuple[str, str]], turns: str) -> dict[str, Any]:
        text = " ".join(t for _, t in gold)
        value = share(memory, text)
        cited = [fid for fid, t in gold if words(memory) & words(t)]
        if value >= 0.8:
            return {"reason": "scripted: in the facts", "score": 2, "in_gold": True, "cited_fact_ids": cited}
        if value >= 0.4:
            return {"reason": "scripted: partly in the facts", "score": 1, "in_gold": True, "cited_fact_ids": cited}
        if share(memory, turns) >= 0.8:
            return {"reason": "scripted: in the turns only", "score": 2, "in_gold": False, "cited_fact_ids": []}
        return {"reason": "scripted: supported by nothing", "score": 0, "in_gold": False, "cited_fact_ids": []}
