"""Scripted accuracy judges for the fake OpenAI server, one per model name: each model gives the verdict its
script names for the item being judged (recognised by the support document ids in the judge's request).
Every other request (and every accuracy request of an unscripted model) goes to the fallback responder."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.policy import schema_title
from tests.fake_openai.server import Reply

_SUPPORT_HEADING = re.compile(r"^### \[([^\]]+)\] .*\(support document\)$", re.MULTILINE)


@dataclass
class JudgePanelScript:
    # model -> support document id -> verdict (pass / fail / needs_adjudication)
    verdicts: dict[str, dict[str, str]]
    fallback: Callable[[dict[str, Any]], Reply]
    # (model, support document ids) of every accuracy request answered from the script
    asked: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        model = str(body.get("model"))
        if schema_title(body) != "AccuracyOut" or model not in self.verdicts:
            return self.fallback(body)
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        support = tuple(_SUPPORT_HEADING.findall(prompt))
        script = self.verdicts[model]
        verdict = next((script[d] for d in support if d in script), None)
        if verdict is None:
            raise ValueError(f"no scripted verdict of {model} for support documents {support}")
        self.asked.append((model, support))
        return Reply.json({"verdict": verdict, "rationale": f"scripted by {model}", "failed_requirement_ids": []})
