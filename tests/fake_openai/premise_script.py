"""A scripted abstention / gotcha judge for the fake OpenAI server: it answers the binary-label requests
(schema `BinaryLabelOut`) with label 1 when the request mentions `PASS_MARK` and 0 otherwise, and keeps the
system prompts it was sent (to check which prompt text reached the endpoint). Other requests go to the fallback
(e.g. AutoPolicy). `invalid=True` answers with a reply that fails the schema."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.policy import schema_title
from tests.fake_openai.server import Reply

PASS_MARK = "NEVER_HAPPENED"


@dataclass
class PremiseJudgeScript:
    fallback: Callable[[dict[str, Any]], Reply]
    invalid: bool = False
    system_prompts: list[str] = field(default_factory=list)
    requests: int = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        if schema_title(body) != "BinaryLabelOut":
            return self.fallback(body)
        self.requests += 1
        messages = body.get("messages") or []
        self.system_prompts.append(str(messages[0].get("content") or "") if messages else "")
        if self.invalid:
            return Reply.json({"label": 2, "reason": "out of range"})
        user = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
        label = 1 if PASS_MARK in user else 0
        return Reply.json({"label": label, "reason": json.dumps(f"scripted label {label}")})
