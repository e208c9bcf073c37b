"""The judges. Each returns AnswerJudged events; a reply that stays invalid after the retries becomes a
recorded needs_adjudication (accuracy) or an invalid verdict (quality, error analysis), never dropped.
Endpoint failures (LLMUnavailableError) propagate: the attempt stays unjudged and a rerun judges it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.judging.reference import JudgeMaterial
from agents.llm.client import LLMClient
from agents.llm.errors import LLMOutputError
from agents.prompts.judging import ERROR_CATEGORIES, QUALITY_DIMENSIONS
from agents.prompts.registry import PromptSet
from agents.prompts.template import PromptTemplate, render_messages
from graph.events import AnswerJudged
from graph.hashing import text_sha256

ErrorCategory = Literal["personal_assumption", "context_underuse", "rule_misuse", "answer_omission", "other"]
Visibility = Literal["visible", "partial", "invisible", "uncertain"]


class AccuracyOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    verdict: Literal["pass", "fail", "needs_adjudication"]
    rationale: str
    failed_requirement_ids: list[str]


class QualityOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    score: int = Field(ge=1, le=5)
    candidate_excerpt: str
    source_evidence: str
    rationale: str


class ErrorAnalysisOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    main_category: ErrorCategory
    secondary_categories: list[ErrorCategory] = Field(max_length=2)
    visibility: Visibility
    rationale: str


assert set(ERROR_CATEGORIES) == set(ErrorCategory.__args__)  # type: ignore[attr-defined]


def judgment_id(attempt_id: str, kind: str, judge_model: str, template: PromptTemplate) -> str:
    """Stable per (attempt, kind, judge model, prompt): the same judge never judges the same thing twice."""
    return f"{attempt_id}:{kind}:{text_sha256(judge_model + '|' + template.sha256)[:10]}"


def _judged(attempt_id: str, kind: str, llm: LLMClient, template: PromptTemplate, **fields: Any) -> AnswerJudged:
    return AnswerJudged(
        judgment_id=judgment_id(attempt_id, kind, llm.model, template),
        attempt_id=attempt_id,
        kind=kind,
        judge_model=llm.model,
        prompt_name=template.name,
        prompt_version=template.version,
        prompt_sha256=template.sha256,
        **fields,
    )


def _invalid(
    attempt_id: str, kind: str, llm: LLMClient, template: PromptTemplate, exc: LLMOutputError, **fields: Any
) -> AnswerJudged:
    """The recorded verdict of a judge whose reply stayed invalid after every retry."""
    return _judged(
        attempt_id, kind, llm, template,
        rationale="the judge's reply stayed invalid after every retry",
        valid=False,
        details={"problem": str(exc)},
        exchange=exc.exchange,
        **fields,
    )


def judge_accuracy(attempt_id: str, material: JudgeMaterial, llm: LLMClient, prompts: PromptSet) -> AnswerJudged:
    """pass / fail / needs_adjudication for the answer as a whole."""
    template = prompts["judge_accuracy"]
    known = set(material.requirement_ids)

    def check(out: AccuracyOut) -> str | None:
        unknown = [r for r in out.failed_requirement_ids if r not in known]
        if unknown:
            return f"failed_requirement_ids {unknown} are not requirement ids of this item ({sorted(known)})"
        return None

    try:
        reply = llm.structured(
            render_messages(template, **material.values()), AccuracyOut, name="accuracy_verdict", check=check
        )
    except LLMOutputError as exc:
        return _invalid(attempt_id, "accuracy", llm, template, exc, verdict="needs_adjudication")
    out = reply.value
    return _judged(
        attempt_id, "accuracy", llm, template,
        exchange=reply.exchange,
        verdict=out.verdict,
        score=1.0 if out.verdict == "pass" else 0.0,
        rationale=out.rationale,
        details={
            "failed_requirement_ids": out.failed_requirement_ids,
            "tokens_in": reply.tokens_in,
            "tokens_out": reply.tokens_out,
            "attempts": len(reply.replies),
        },
    )


def judge_quality(
    attempt_id: str,
    material: JudgeMaterial,
    llm: LLMClient,
    prompts: PromptSet,
    *,
    dimensions: list[str] | None = None,
) -> list[AnswerJudged]:
    """One blind call per dimension (all five by default); kind `quality:<dimension>`, score 1-5. The judge sees
    no method marker: `JudgeMaterial.blind_values` (no S(H), tool calls in one shape for every method)."""
    verdicts: list[AnswerJudged] = []
    for dimension in dimensions if dimensions is not None else list(QUALITY_DIMENSIONS):
        template = prompts[f"judge_quality_{dimension}"]
        kind = f"quality:{dimension}"
        try:
            messages = render_messages(template, **material.blind_values())
            reply = llm.structured(messages, QualityOut, name="quality_score")
        except LLMOutputError as exc:
            verdicts.append(_invalid(attempt_id, kind, llm, template, exc))
            continue
        out = reply.value
        verdicts.append(
            _judged(
                attempt_id, kind, llm, template,
                exchange=reply.exchange,
                score=float(out.score),
                rationale=out.rationale,
                details={
                    "candidate_excerpt": out.candidate_excerpt,
                    "source_evidence": out.source_evidence,
                    "tokens_in": reply.tokens_in,
                    "tokens_out": reply.tokens_out,
                },
            )
        )
    return verdicts


def analyse_error(
    attempt_id: str, material: JudgeMaterial, accuracy_rationale: str, llm: LLMClient, prompts: PromptSet
) -> AnswerJudged:
    """Main error category, up to two secondary ones, and evidence visibility of a failed answer."""
    template = prompts["judge_error_analysis"]
    try:
        reply = llm.structured(
            render_messages(template, accuracy_rationale=accuracy_rationale, **material.values()),
            ErrorAnalysisOut,
            name="error_analysis",
        )
    except LLMOutputError as exc:
        return _invalid(attempt_id, "error_analysis", llm, template, exc)
    out = reply.value
    return _judged(
        attempt_id, "error_analysis", llm, template,
        exchange=reply.exchange,
        error_category=out.main_category,
        visibility=out.visibility,
        rationale=out.rationale,
        details={
            "secondary_categories": [c for c in out.secondary_categories if c != out.main_category],
            "tokens_in": reply.tokens_in,
            "tokens_out": reply.tokens_out,
        },
    )
