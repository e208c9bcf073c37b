"""A scripted reader and judge for the memory QA axis on the fake OpenAI server, decided by word overlap so a
test can work out every verdict by hand (words = runs of 4+ letters, as in memory_quality_script).

- reader (`MemoryAnswerOut`): answers with the text of the listed memory sharing the most words with the
  question when it holds >= 0.25 of the question's words (citing it), else says the memories do not hold it.
- judge (`MemoryQaOut`): omission when the answer says the memories do not hold it; correct when the answer
  holds >= 0.6 of the reference answer's words; else hallucination.
A judge request whose question contains one of `invalid_when` gets a reply that is not JSON, every time.
Other requests go to `fallback`, or fail."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.memory_quality_script import share
from tests.fake_openai.policy import schema_title
from tests.fake_openai.server import Reply

NOT_HELD = "The memories do not hold this information."
_ITEM = re.compile(r"^- \[([^\]]+)\] (.*)$", re.MULTILINE)


def _section(prompt: str, heading: str) -> str:
    start = prompt.find(f"## {heading}")
    if start < 0:
        return ""
    body = prompt[start:].split("\n", 1)[1] if "\n" in prompt[start:] else ""
    end = body.find("\n## ")
    return (body if end < 0 else body[:end]).strip()


@dataclass
class MemoryQaScript:
    fallback: Callable[[dict[str, Any]], Reply] | None = None
    invalid_when: tuple[str, ...] = ()
    requests: dict[str, int] = field(default_factory=dict)

    def __call__(self, body: dict[str, Any]) -> Reply:
        title = schema_title(body)
        if title not in ("MemoryAnswerOut", "MemoryQaOut"):
            if self.fallback is None:
                raise AssertionError(f"not a memory QA request (schema {title!r})")
            return self.fallback(body)
        assert title is not None
        self.requests[title] = self.requests.get(title, 0) + 1
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages", []) if m.get("role") == "user")
        question = _section(prompt, "Question").split("\n(question type:")[0].strip()
        if title == "MemoryAnswerOut":
            memories = _ITEM.findall(_section(prompt, "Notes the memory system retrieved for it"))
            best = max(memories, key=lambda m: share(question, m[1]), default=None)
            if best is None or share(question, best[1]) < 0.25:
                return Reply.json({"answer": NOT_HELD, "used_memory_ids": []})
            return Reply.json({"answer": best[1], "used_memory_ids": [best[0]]})
        if any(marker in question for marker in self.invalid_when):
            return Reply.text("No JSON today.")
        answer = _section(prompt, "Answer given from the memories")
        reference = _section(prompt, "Reference answer")
        if answer == NOT_HELD:
            category = "omission"
        elif share(reference, answer) >= 0.6:
            category = "correct"
        else:
            category = "hallucination"
        return Reply.json({"reason": f"scripted: {category}", "category": category})
