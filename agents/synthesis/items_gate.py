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
from agents.synthesis.items_plan import GateResult, ItemPlan, Plan, ProfileHistory, SourceTurn, SupportDocsPlan
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


class ReadDocument(BaseModel):
    """One support document as the agent's Read returns it, page by page (numbered lines)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    document_title: str
    document_lines: int
    pages: list[ReadPage]
    whole_document_read: bool
    reading: str


class BlindSolverDocsView(View):
    """The question and each support document as the agent's Read returns it (items with several)."""

    question: str
    documents: list[ReadDocument]
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


class SupportText(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    doc_id: str
    title: str
    text: str


class VerifierDocsView(View):
    """The final verifier's view of an item with several support documents: each one's text."""

    question: str
    reference_answer: str
    requirements: list[VerifiedRequirement]
    support_documents: list[SupportText]
    support_text_limits: str
    documents_seen_in_history: list[ExposedText]
    history_text_limits: str
    history_gate_label: str


# What the verifier is shown of each support document (the same for one or several).
SUPPORT_LINES, SUPPORT_CHARS = 80, 6000


def question_writer_view(history: ProfileHistory, intent: str) -> QuestionWriterView:
    titles = [str(s["topic_title"]) for s in history.sessions if s.get("topic_title")]
    first = history.name.split()[0] if history.name.split() else "the user"
    return QuestionWriterView(first_name=first, session_topics=list(dict.fromkeys(titles)), intent=intent)


def _reading_note(reading: AgentReading) -> str:
    return (
        f"{len(reading.pages)} Read call(s) of at most 100 lines and 3,000 tokens each, from line 1: lines 1-"
        f"{reading.lines_read} of {reading.document_lines}"
        + ("" if reading.whole_document else " (the rest was not read)")
    )


def blind_solver_view(question: str, reading: AgentReading) -> BlindSolverView:
    return BlindSolverView(
        question=question,
        document_title=reading.title,
        document_lines=reading.document_lines,
        pages=reading.pages,
        whole_document_read=reading.whole_document,
        reading=_reading_note(reading),
    )


def blind_solver_docs_view(question: str, readings: list[AgentReading], max_reads: int) -> BlindSolverDocsView:
    """Each support document read as the agent would: the agent's tool rounds have no cap on calls per round
    (agents/answerer.py Budget), so it can Read every document once a round, `max_reads` pages of each."""
    return BlindSolverDocsView(
        question=question,
        documents=[
            ReadDocument(
                document_title=r.title,
                document_lines=r.document_lines,
                pages=r.pages,
                whole_document_read=r.whole_document,
                reading=_reading_note(r),
            )
            for r in readings
        ],
        reading=f"{len(readings)} documents, each read with at most {max_reads} Read call(s) (one a tool round)",
    )


def comparator_view(question: str, plan: Plan, blind_answer: str) -> ComparatorView:
    return ComparatorView(
        question=question,
        reference_answer=plan.reference_answer,
        requirements=[GateRequirement(text=r.text, action=r.action) for r in plan.requirements],
        blind_answer=blind_answer,
    )


HISTORY_TEXT_LIMITS = (
    f"each document: the lines the history showed of it (search snippets and read spans, merged), at most "
    f"{HISTORY_CHARS_PER_DOC:,} characters; {HISTORY_CHARS_TOTAL:,} characters over all documents; "
    "cut = true where a limit left lines out"
)


def _verified_requirements(plan: Plan, history: ProfileHistory, supports: list[DocText]) -> list[VerifiedRequirement]:
    """Each requirement with its conditions, source turns and the lines it cites (labelled with the document when
    the item has several)."""
    turns = history.turn_text()
    by_id = {d.doc_id: d for d in supports}
    several = len(supports) > 1 or isinstance(plan, SupportDocsPlan)
    reqs = []
    for r in plan.requirements:
        evidence = [
            ((f"{s.doc_id} " if several else "") + f"lines {s.start_line}-{s.end_line}:\n")
            + by_id[s.doc_id].excerpt(s.start_line, s.end_line - s.start_line + 1, 2000)
            for s in r.spans
            if s.doc_id in by_id
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
    return reqs


def verifier_view(
    question: str, plan: ItemPlan, history: ProfileHistory, support: DocText, seen: list[ExposedText], label: str
) -> VerifierView:
    return VerifierView(
        question=question,
        reference_answer=plan.reference_answer,
        requirements=_verified_requirements(plan, history, [support]),
        support_document_title=support.title,
        support_document=support.excerpt(1, max_lines=SUPPORT_LINES, max_chars=SUPPORT_CHARS),
        documents_seen_in_history=seen,
        history_text_limits=HISTORY_TEXT_LIMITS,
        history_gate_label=label,
    )


def verifier_docs_view(
    question: str,
    plan: SupportDocsPlan,
    history: ProfileHistory,
    supports: list[DocText],
    seen: list[ExposedText],
    label: str,
) -> VerifierDocsView:
    return VerifierDocsView(
        question=question,
        reference_answer=plan.reference_answer,
        requirements=_verified_requirements(plan, history, supports),
        support_documents=[
            SupportText(
                doc_id=d.doc_id, title=d.title, text=d.excerpt(1, max_lines=SUPPORT_LINES, max_chars=SUPPORT_CHARS)
            )
            for d in supports
        ],
        support_text_limits=(
            f"each support document: its first {SUPPORT_LINES} lines, at most {SUPPORT_CHARS:,} characters "
            "(the evidence of each requirement quotes the lines it cites)"
        ),
        documents_seen_in_history=seen,
        history_text_limits=HISTORY_TEXT_LIMITS,
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


def write_question(ctx: SynthContext, stage: str, history: ProfileHistory, plan: Plan) -> str | GateFailure:
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
    plan: Plan,
    question: str,
    supports: list[DocText],
    seen: list[ExposedText],
) -> GateResult | GateFailure:
    """The History Gate, then (only for a history-dependent item) the final verifier. `supports` are the plan's
    support documents in its order; a SupportDocsPlan gets the several-document views and prompts."""
    readings = [read_as_agent(ctx.retriever, d, ctx.config.blind_reads) for d in supports]
    single = isinstance(plan, ItemPlan)
    blind_view: View = (
        blind_solver_view(question, readings[0])
        if single
        else blind_solver_docs_view(question, readings, ctx.config.blind_reads)
    )
    blind = ask(
        ctx,
        stage=stage,
        role="blind_solver",
        prompt="synth_blind_solver" if single else "synth_blind_solver_docs",
        view=blind_view,
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
        prompt="synth_item_verifier" if isinstance(plan, ItemPlan) else "synth_item_verifier_docs",
        view=(
            verifier_view(question, plan, history, supports[0], seen, label)
            if isinstance(plan, ItemPlan)
            else verifier_docs_view(question, plan, history, supports, seen, label)
        ),
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
