"""The roles that turn an item plan into an admitted item (paper Sec. 3.3, App. A.4): the question writer
(public background and the intent only), the History Gate (a blind solver with the question and the new
support text only; a comparator labelling its answer against the reference) and the final verifier.
Each role's view is built by one function, `<role>_view`, from exactly what that role may see."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.synthesis.context import SynthContext
from agents.synthesis.items_plan import GateResult, ItemPlan, ProfileHistory, SourceTurn
from agents.synthesis.reading import (
    HISTORY_CHARS_PER_DOC,
    HISTORY_CHARS_TOTAL,
    AgentReading,
    ExposedText,
    ReadPage,
    exposed_texts,
    read_as_agent,
)
from agents.synthesis.roles import View, ask
from agents.synthesis.state import DocText, documents

HISTORY_DEPENDENT = "history_dependent"
GATE_LABELS = ("history_dependent", "answerable_without_history", "insufficient_evidence")


# --- outputs -------------------------------------------------------------------------------------------------


class WrittenQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=5, max_length=2000)


class BlindAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: str = Field(min_length=1, max_length=8000)


class GateLabel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    label: Literal["history_dependent", "answerable_without_history", "insufficient_evidence"]
    notes: str = Field(default="", max_length=4000)


class FinalVerification(BaseModel):
    model_config = ConfigDict(extra="forbid")
    natural: bool
    conditions_grounded: bool
    history_alone_insufficient: bool
    evidence_supports_answer: bool
    safe: bool
    problems: list[str] = Field(default_factory=list)

    def checks(self) -> dict[str, bool]:
        return {
            "natural": self.natural,
            "conditions_grounded": self.conditions_grounded,
            "history_alone_insufficient": self.history_alone_insufficient,
            "evidence_supports_answer": self.evidence_supports_answer,
            "safe": self.safe,
        }


# --- views ---------------------------------------------------------------------------------------------------


class QuestionWriterView(View):
    first_name: str
    session_topics: list[str]
    intent: str


class BlindSolverView(View):
    """The question and the support document as the agent's Read returns it, page by page (numbered lines)."""

    question: str
    document_title: str
    document_lines: int
    pages: list[ReadPage]
    whole_document_read: bool
    reading: str


class GateRequirement(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    text: str
    action: str | None


class ComparatorView(View):
    question: str
    reference_answer: str
    requirements: list[GateRequirement]
    blind_answer: str


class VerifiedRequirement(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    text: str
    action: str | None
    conditions: list[str]
    source_turns: list[SourceTurn]
    evidence: list[str]


class VerifierView(View):
    question: str
    reference_answer: str
    requirements: list[VerifiedRequirement]
    support_document_title: str
    support_document: str
    documents_seen_in_history: list[ExposedText]
    history_text_limits: str
    history_gate_label: str


def question_writer_view(history: ProfileHistory, intent: str) -> QuestionWriterView:
    titles = [str(s["topic_title"]) for s in history.sessions if s.get("topic_title")]
    first = history.name.split()[0] if history.name.split() else "the user"
    return QuestionWriterView(first_name=first, session_topics=list(dict.fromkeys(titles)), intent=intent)


def blind_solver_view(question: str, reading: AgentReading) -> BlindSolverView:
    pages = len(reading.pages)
    return BlindSolverView(
        question=question,
        document_title=reading.title,
        document_lines=reading.document_lines,
        pages=reading.pages,
        whole_document_read=reading.whole_document,
        reading=(
            f"{pages} Read call(s) of at most 100 lines and 3,000 tokens each, from line 1: lines 1-"
            f"{reading.lines_read} of {reading.document_lines}"
            + ("" if reading.whole_document else " (the rest was not read)")
        ),
    )


def comparator_view(question: str, plan: ItemPlan, blind_answer: str) -> ComparatorView:
    return ComparatorView(
        question=question,
        reference_answer=plan.reference_answer,
        requirements=[GateRequirement(text=r.text, action=r.action) for r in plan.requirements],
        blind_answer=blind_answer,
    )


def verifier_view(
    question: str, plan: ItemPlan, history: ProfileHistory, support: DocText, seen: list[ExposedText], label: str
) -> VerifierView:
    turns = history.turn_text()
    reqs = []
    for r in plan.requirements:
        evidence = [
            f"lines {s.start_line}-{s.end_line}:\n" + support.excerpt(s.start_line, s.end_line - s.start_line + 1, 2000)
            for s in r.spans
            if s.doc_id == support.doc_id
        ]
        reqs.append(
            VerifiedRequirement(
                text=r.text,
                action=r.action,
                conditions=[history.facts.get(f, f) for f in r.fact_ids],
                source_turns=[SourceTurn(turn_id=t, text=turns.get(t, "")[:1500]) for t in r.turn_ids],
                evidence=evidence,
            )
        )
    return VerifierView(
        question=question,
        reference_answer=plan.reference_answer,
        requirements=reqs,
        support_document_title=support.title,
        support_document=support.excerpt(1, max_lines=80, max_chars=6000),
        documents_seen_in_history=seen,
        history_text_limits=(
            f"each document: the lines the history showed of it (search snippets and read spans, merged), at most "
            f"{HISTORY_CHARS_PER_DOC:,} characters; {HISTORY_CHARS_TOTAL:,} characters over all documents; "
            "cut = true where a limit left lines out"
        ),
        history_gate_label=label,
    )


# --- checks --------------------------------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) > 3]


def restates_fact(question: str, fact_texts: list[str]) -> bool:
    """True when the question spells out a disclosed condition: its text verbatim, or nearly all of its words."""
    q = " ".join(_WORD.findall(question.lower()))
    qwords = set(_words(question))
    for text in fact_texts:
        norm = " ".join(_WORD.findall(text.lower()))
        if norm and norm in q:
            return True
        words = set(_words(text))
        if len(words) >= 3 and len(words & qwords) / len(words) >= 0.8:
            return True
    return False


def check_question(fact_texts: list[str]) -> Callable[[WrittenQuestion], str | None]:
    def check(value: WrittenQuestion) -> str | None:
        # The message goes back to the writer: it must not quote the conditions it may not see.
        if restates_fact(value.question, fact_texts):
            return (
                "the question spells out one of the user's personal conditions; the assistant must recall "
                "it from the history, so leave it out and ask as the user naturally would"
            )
        return None

    return check


# --- the gate ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GateFailure:
    role: str
    reasons: list[str]
    details: dict[str, object]
    # The exchange of the call that failed the gate.
    exchange: str | None = None


def write_question(ctx: SynthContext, stage: str, history: ProfileHistory, plan: ItemPlan) -> str | GateFailure:
    facts = list(history.facts.values())  # no disclosed condition may be spelled out, used or not
    made = ask(
        ctx,
        stage=stage,
        role="question_writer",
        prompt="synth_question_writer",
        view=question_writer_view(history, plan.intent),
        output=WrittenQuestion,
        check=check_question(facts),
    )
    if made.value is None:
        return GateFailure("question_writer", [made.problem or "no valid question"], {}, made.exchange)
    return made.value.question


def history_seen(ctx: SynthContext, history: ProfileHistory) -> list[ExposedText]:
    """The text of what the profile's history showed of each document, within the verifier's limits."""
    texts = documents(ctx, sorted(history.exposed_spans))
    docs = {d: (t.title, t.lines) for d, t in texts.items()}
    return exposed_texts(docs, history.exposed_spans)


def history_gate_and_verify(
    ctx: SynthContext,
    stage: str,
    history: ProfileHistory,
    plan: ItemPlan,
    question: str,
    support: DocText,
    seen: list[ExposedText],
) -> GateResult | GateFailure:
    """The History Gate, then (only for a history-dependent item) the final verifier."""
    reading = read_as_agent(ctx.retriever, support, ctx.config.blind_reads)
    blind = ask(
        ctx,
        stage=stage,
        role="blind_solver",
        prompt="synth_blind_solver",
        view=blind_solver_view(question, reading),
        output=BlindAnswer,
    )
    if blind.value is None:
        return GateFailure(
            "blind_solver", [blind.problem or "no valid blind answer"], {"question": question}, blind.exchange
        )
    compared = ask(
        ctx,
        stage=stage,
        role="comparator",
        prompt="synth_comparator",
        view=comparator_view(question, plan, blind.value.answer),
        output=GateLabel,
    )
    if compared.value is None:
        return GateFailure(
            "comparator",
            [compared.problem or "no valid label"],
            {"question": question, "blind_answer": blind.value.answer},
            compared.exchange,
        )
    label = compared.value.label
    if label != HISTORY_DEPENDENT:
        return GateFailure(
            "comparator",
            [f"History Gate: {label}: {compared.value.notes}".strip()],
            {
                "question": question,
                "label": label,
                "blind_answer": blind.value.answer,
                "comparator_notes": compared.value.notes,
            },
            compared.exchange,
        )
    verified = ask(
        ctx,
        stage=stage,
        role="verifier",
        prompt="synth_item_verifier",
        view=verifier_view(question, plan, history, support, seen, label),
        output=FinalVerification,
    )
    if verified.value is None:
        return GateFailure(
            "verifier",
            [verified.problem or "no valid verification"],
            {"question": question, "label": label},
            verified.exchange,
        )
    checks = verified.value.checks()
    if not all(checks.values()):
        failed = [k for k, v in checks.items() if not v]
        return GateFailure(
            "verifier",
            verified.value.problems or [f"failed checks: {', '.join(failed)}"],
            {"question": question, "label": label, "checks": checks},
            verified.exchange,
        )
    return GateResult(
        label=label,
        blind_answer=blind.value.answer,
        comparator_notes=compared.value.notes,
        checks=checks,
        verifier_problems=verified.value.problems,
        exchange=verified.exchange,
    )
