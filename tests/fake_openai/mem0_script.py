"""A scripted Mem0 extractor for the fake OpenAI server: it recognises Mem0 2.x's additive extraction request
(its "Memory Extractor" system prompt, `json_object` mode) and answers with one memory per user message of the
pair, the message's text verbatim. Other requests go to a fallback responder (e.g. AutoPolicy), or fail.

`fail_from` makes the extraction calls from that one on (1-based) raise, which the server turns into HTTP 500:
a build killed mid-way by a dying endpoint."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.server import Reply

EXTRACTOR_MARK = "You are a Memory Extractor"
_SECTION = re.compile(r"## New Messages\n(.*?)\n\n## Observation Date", re.DOTALL)
_MESSAGE = re.compile(r"^(user|assistant): ", re.MULTILINE)


def is_mem0_extraction(body: dict[str, Any]) -> bool:
    messages = body.get("messages") or []
    system = str(messages[0].get("content") or "") if messages else ""
    fmt = body.get("response_format") or {}
    return EXTRACTOR_MARK in system and fmt.get("type") == "json_object"


def new_messages(body: dict[str, Any]) -> list[tuple[str, str]]:
    """The (role, text) messages of the pair Mem0 is taking in, from its "## New Messages" section."""
    prompt = str(body["messages"][-1].get("content") or "")
    found = _SECTION.search(prompt)
    if found is None:
        return []
    block = found.group(1)
    starts = list(_MESSAGE.finditer(block))
    out: list[tuple[str, str]] = []
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(block)
        out.append((match.group(1), block[match.end() : end].strip()))
    return out


@dataclass
class Mem0Script:
    fallback: Callable[[dict[str, Any]], Reply] | None = None
    fail_from: int | None = None
    extractions: int = 0
    prompts: list[str] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if not is_mem0_extraction(body):
            if self.fallback is None:
                raise AssertionError("not a Mem0 extraction request")
            return self.fallback(body)
        self.extractions += 1
        if self.fail_from is not None and self.extractions >= self.fail_from:
            raise RuntimeError(f"scripted failure of extraction {self.extractions}")
        self.prompts.append(str(body["messages"][-1].get("content") or ""))
        texts = [text for role, text in new_messages(body) if role == "user" and text]
        return Reply.json({"memory": [{"id": str(i), "text": text} for i, text in enumerate(texts)]})
