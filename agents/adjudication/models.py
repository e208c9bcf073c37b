"""The records of adjudication: what a person sees to rule on a verdict (`VerdictCase`), the ruling they make
(`AdjudicationRequest`) and a recorded ruling (`Ruling`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

Verdict = Literal["pass", "fail"]


class Ruling(BaseModel):
    """A recorded adjudication (an Adjudication node). `reason` is gold."""

    model_config = ConfigDict(frozen=True)
    adjudication_id: str
    judgment_id: str
    verdict: Verdict
    adjudicator: str
    reason: str | None
    adjudicated_at: str
    seq: int


class Statement(BaseModel):
    """A user turn a requirement cites (verbatim)."""

    turn_id: str
    text: str


class RequirementView(BaseModel):
    """An answer requirement as the adjudicator sees it (text and action are gold)."""

    requirement_id: str
    text: str | None
    action: str | None
    statements: list[Statement] = Field(default_factory=list)
    spans: list[str] = Field(default_factory=list)  # "doc_id lines a-b"


class CallView(BaseModel):
    """One tool call of the attempt: what the method asked and what came back (response cut for display)."""

    round: int
    ordinal: int
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    error: str | None = None
    returned: list[str] = Field(default_factory=list)  # "document:d1 lines 1-5", "memory:m3"
    response: str = ""
    response_chars: int = 0


class VerdictCase(BaseModel):
    """An attempt's counted accuracy verdict with everything a person needs to rule on it."""

    attempt_id: str
    run_id: str
    method: str
    item_id: str
    question: str
    reference_answer: str | None
    requirements: list[RequirementView]
    answer: str | None
    judgment_id: str
    judge_verdict: str
    judge_rationale: str | None
    judge_model: str | None
    judge_valid: bool = True
    calls: list[CallView] = Field(default_factory=list)
    adjudication: Ruling | None = None

    @property
    def pending(self) -> bool:
        """The judge left it as needs_adjudication and nobody has ruled on the attempt yet."""
        return self.judge_verdict == "needs_adjudication" and self.adjudication is None


MAX_REASON_CHARS = 10_000
MAX_ADJUDICATOR_CHARS = 200


class AdjudicationRequest(BaseModel):
    """A person's ruling to record. `judgment_id` defaults to the attempt's counted accuracy verdict;
    `adjudicated_at` to now (UTC); `overrule` allows ruling on a verdict that is not pending."""

    model_config = ConfigDict(extra="forbid")
    attempt_id: str = Field(min_length=1)
    verdict: Verdict
    reason: str
    adjudicator: str
    judgment_id: str | None = None
    adjudicated_at: str | None = None
    overrule: bool = False

    @field_validator("reason", "adjudicator")
    @classmethod
    def _not_blank(cls, value: str, info: ValidationInfo) -> str:
        value = value.strip()
        if not value:
            raise ValueError("must not be empty")
        limit = MAX_REASON_CHARS if info.field_name == "reason" else MAX_ADJUDICATOR_CHARS
        if len(value) > limit:
            raise ValueError(f"is {len(value):,} characters; at most {limit:,}")
        if any(ord(c) < 32 and c not in "\n\t" for c in value) or "\x7f" in value:
            raise ValueError("holds control characters (only newlines and tabs are allowed)")
        return value
