"""A scripted judge for adjudication tests: the accuracy judge answers `needs_adjudication` for the items whose
request contains one of `pending_needles` and `fail` for those in `fail_needles`; every other request (the
answerer, other judges, other items) goes to AutoPolicy. Records which items it left pending."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.policy import AutoPolicy, schema_title
from tests.fake_openai.server import Reply


def request_section(body: dict[str, Any]) -> str:
    """The judge prompt's "## Request" section (histories and documents mention other items' topics)."""
    prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
    if "## Request" not in prompt:
        return ""
    return prompt.split("## Request", 1)[1].split("\n## ", 1)[0]


@dataclass
class AdjudicationJudge:
    pending_needles: tuple[str, ...] = ()
    fail_needles: tuple[str, ...] = ()
    fallback: AutoPolicy = field(default_factory=AutoPolicy)
    left_pending: list[str] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if schema_title(body) != "AccuracyOut":
            return self.fallback(body)
        request = request_section(body)
        for needle in self.pending_needles:
            if needle in request:
                self.left_pending.append(needle)
                return Reply.json(
                    {
                        "verdict": "needs_adjudication",
                        "rationale": f"scripted: cannot tell whether the answer about {needle!r} holds",
                        "failed_requirement_ids": [],
                    }
                )
        for needle in self.fail_needles:
            if needle in request:
                return Reply.json(
                    {"verdict": "fail", "rationale": f"scripted fail on {needle!r}", "failed_requirement_ids": []}
                )
        return self.fallback(body)
