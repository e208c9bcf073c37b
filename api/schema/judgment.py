"""Judgment: a judge's verdict on an attempt (accuracy, one quality dimension, or error analysis)."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.scalars import JSON

from api.redaction import redact_gold
from api.schema.context import Info, context_of
from api.schema.values import json_value


@strawberry.type(
    description="A judge's verdict on an attempt. kind is `accuracy`, `quality:<dimension>` or `error_analysis`; "
    "the judge prompt is pinned by name, version and SHA-256."
)
class Judgment:
    id: strawberry.ID
    attempt_id: str
    kind: str
    verdict: str | None
    score: float | None
    error_category: str | None
    visibility: str | None
    judge_model: str | None
    prompt_name: str | None
    prompt_version: str | None
    prompt_sha256: str | None
    valid: bool = strawberry.field(description="false when the judge's reply stayed invalid after retries")
    exchange: str | None = strawberry.field(
        description="the judge's LLM exchange: /exchange#<hash> (its request holds gold: shown with the API token)"
    )
    seq: int
    raw_details: strawberry.Private[Any]
    gold_rationale: strawberry.Private[str | None]

    @strawberry.field(
        description="the judge's structured output (gold as a whole: what a judge writes there, e.g. the quality "
        "judge's source_evidence, may quote the reference answer); null unless the request may see gold"
    )
    def details(self, info: Info) -> JSON | None:
        value = json_value(self.raw_details, {})
        if context_of(info).gold_visible:
            return value
        return redact_gold({"details": value}, [], kind="Judgment")["details"]

    @strawberry.field(
        description="the judge's reasoning (gold: it quotes the reference answer and requirements); null unless "
        "the request carries the API token or the server reveals gold"
    )
    def rationale(self, info: Info) -> str | None:
        return self.gold_rationale if context_of(info).gold_visible else None

    @strawberry.field(description="gold fields of this judgment hidden from this request")
    def redacted_fields(self, info: Info) -> list[str]:
        if context_of(info).gold_visible:
            return []
        found: list[str] = []
        redact_gold({"rationale": self.gold_rationale, "details": json_value(self.raw_details, {})}, found,
                    kind="Judgment")
        return found

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Judgment:
        score = node.get("score")
        return cls(
            id=strawberry.ID(node["id"]),
            attempt_id=node.get("attempt_id") or "",
            kind=node.get("kind") or "",
            verdict=node.get("verdict"),
            score=float(score) if score is not None else None,
            error_category=node.get("error_category"),
            visibility=node.get("visibility"),
            judge_model=node.get("judge_model"),
            prompt_name=node.get("prompt_name"),
            prompt_version=None if node.get("prompt_version") is None else str(node["prompt_version"]),
            prompt_sha256=node.get("prompt_sha256"),
            valid=bool(node.get("valid", True)),
            exchange=node.get("exchange"),
            seq=int(node.get("seq") or 0),
            raw_details=node.get("details"),
            gold_rationale=node.get("rationale"),
        )
