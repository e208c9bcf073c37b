"""Stage III, items: for each topic a session was held about, the Builder plans one initial item from the
profile's disclosed conditions (each with the user turn that disclosed it) and a support document found by the
real search and never exposed in the history; the question writer phrases it from public background only; the
History Gate (blind solver + comparator) admits only history-dependent items and the final verifier checks
the rest. A failed draft is revised up to `max_revisions` times by the Builder with the problems, then dropped.
Every outcome is a SynthesisDraftRecorded event; an accepted item becomes ItemCreated, RequirementMapped and
ItemVerified events, all appended with the unit's drafts in one transaction at its end."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from agents.synthesis.context import SynthContext
from agents.synthesis.items_gate import GateFailure, history_gate_and_verify, history_seen, write_question
from agents.synthesis.items_plan import (
    Candidate,
    Condition,
    GateResult,
    ItemPlan,
    Plan,
    ProfileHistory,
    SupportDocsPlan,
    candidate_brief,
    check_plan,
    conditions,
    item_events,
    profile_history,
    search_candidates,
    support_docs_made,
)
from agents.synthesis.reading import ExposedText
from agents.synthesis.registry import SynthesisStage, register_stage
from agents.synthesis.roles import View, ask, close_unit, draft_event
from agents.synthesis.runner import StageReport, UnitWork, run_units
from agents.synthesis.state import DocText, closed_subjects
from graph.events import DomainEvent

STAGE = "items"


SINGLE, MULTI = "one", "two_or_more"


class BuilderView(View):
    topic_title: str
    conditions_wanted: Literal["one", "two_or_more"] | None = None
    conditions: list[Condition]
    exposed_doc_ids: list[str]
    candidates: list[Candidate]
    previous_plan: ItemPlan | None = None
    revision_problems: list[str] = Field(default_factory=list)


class BuilderDocsView(View):
    """The Builder's view when items get several support documents: `support_docs_wanted` of the candidates."""

    topic_title: str
    conditions_wanted: Literal["one", "two_or_more"] | None = None
    support_docs_wanted: int
    conditions: list[Condition]
    exposed_doc_ids: list[str]
    candidates: list[Candidate]
    previous_plan: SupportDocsPlan | None = None
    revision_problems: list[str] = Field(default_factory=list)


def builder_view(
    topic_title: str,
    history: ProfileHistory,
    candidates: dict[str, DocText],
    previous: Plan | None = None,
    problems: list[str] | None = None,
    wanted: str | None = None,
    support_docs: int | None = None,
) -> BuilderView | BuilderDocsView:
    """The Builder's view; with `support_docs` (a synthesis asking for two or more per item) the view that
    asks for that many."""
    if support_docs is not None:
        assert previous is None or isinstance(previous, SupportDocsPlan)
        return BuilderDocsView(
            topic_title=topic_title,
            conditions_wanted=wanted,  # type: ignore[arg-type]
            support_docs_wanted=support_docs,
            conditions=conditions(history),
            exposed_doc_ids=sorted(history.exposed),
            candidates=[candidate_brief(d) for d in candidates.values()],
            previous_plan=previous,
            revision_problems=list(problems or []),
        )
    assert previous is None or isinstance(previous, ItemPlan)
    return BuilderView(
        topic_title=topic_title,
        conditions_wanted=wanted,  # type: ignore[arg-type]
        conditions=conditions(history),
        exposed_doc_ids=sorted(history.exposed),
        candidates=[candidate_brief(d) for d in candidates.values()],
        previous_plan=previous,
        revision_problems=list(problems or []),
    )


def candidate_limit(ctx: SynthContext) -> int:
    """Candidate support documents to search for: `candidates_per_item`, and with N support documents per item
    at least 2N (so the Builder still chooses)."""
    n = ctx.config.support_docs
    return ctx.config.candidates_per_item if n == 1 else max(ctx.config.candidates_per_item, 2 * n)


def item_id_of(topic_id: str) -> str:
    return f"{topic_id}-i0"


def topic_units(ctx: SynthContext) -> list[dict[str, Any]]:
    """Topics of the dataset that have a session, in an order sampled with the seed; with a shape target, the
    first `initial_single_share()` of them in that order are to be single-fact items, the rest multi-fact."""
    rows = ctx.query("items_topics", dataset=ctx.config.dataset)
    random.Random(f"{ctx.config.seed}:items").shuffle(rows)
    target = ctx.config.target
    singles = round(target.initial_single_share() * len(rows)) if target is not None else 0
    for index, row in enumerate(rows):
        row["conditions_wanted"] = None if target is None else (SINGLE if index < singles else MULTI)
    return rows


def build_item(ctx: SynthContext, unit: dict[str, Any]) -> str:
    """Stage III for one topic: the Builder plans an item over the profile's history and candidate support
    documents, the question writer asks it, the History Gate and the verifier check it; revised up to
    `max_revisions` times, then admitted (its events appended with the drafts) or dropped. Returns the outcome."""
    topic_id, subject = str(unit["topic_id"]), str(unit["topic_id"])
    item_id = item_id_of(topic_id)
    history = profile_history(ctx, str(unit["profile_id"]))
    if not history.disclosures:
        return close_unit(
            ctx,
            stage=STAGE,
            role="builder",
            subject=subject,
            outcome="dropped",
            reasons=["no personal condition was disclosed in this profile's history"],
            details={"item_id": item_id},
        )
    queries = [str(unit["title"] or ""), *[c.text for c in conditions(history)]]
    candidates = search_candidates(ctx, queries, history.exposed, candidate_limit(ctx))
    if not candidates:
        return close_unit(
            ctx,
            stage=STAGE,
            role="builder",
            subject=subject,
            outcome="dropped",
            reasons=["the search found no support document that the history did not expose"],
            details={"item_id": item_id},
        )
    seen = history_seen(ctx, history)
    shape = _item_shape(ctx, unit, history, len(candidates))
    return _plan_and_check(ctx, unit, history, candidates, seen, shape)


@dataclass(frozen=True)
class _Shape:
    """What the item is to be: single or multi condition (None: no target), how many support documents (None:
    one, with the one-document prompt), and the note the drafts carry about it."""

    wanted: str | None
    docs_wanted: int | None
    note: dict[str, object]


def _item_shape(ctx: SynthContext, unit: dict[str, Any], history: ProfileHistory, n_candidates: int) -> _Shape:
    wanted = unit.get("conditions_wanted")
    shape_note: dict[str, object] = {}
    if wanted == MULTI and len(history.facts) < 2:
        shape_note = {"conditions_wanted": MULTI, "made": SINGLE, "why": "the history disclosed one condition"}
        wanted = SINGLE
    elif wanted is not None:
        shape_note = {"conditions_wanted": wanted}
    # Several support documents per item: their own prompt and plan model (one keeps the requests as they were).
    docs_wanted: int | None = None
    if ctx.config.support_docs > 1:
        docs_wanted, fewer = support_docs_made(ctx.config.support_docs, n_candidates)
        shape_note = {**shape_note, **fewer}
    return _Shape(wanted, docs_wanted, shape_note)


def _plan_and_check(
    ctx: SynthContext,
    unit: dict[str, Any],
    history: ProfileHistory,
    candidates: dict[str, DocText],
    seen: list[ExposedText],
    shape: _Shape,
) -> str:
    """The Builder's plan, the question and the gates, revised until admitted or out of revisions."""
    topic_id = subject = str(unit["topic_id"])
    item_id = item_id_of(topic_id)
    wanted, docs_wanted, shape_note = shape.wanted, shape.docs_wanted, shape.note
    drafts: list[tuple[str, DomainEvent]] = []
    check = check_plan(
        history,
        candidates,
        min_conditions=2 if wanted == MULTI else 1,
        max_conditions=1 if wanted == SINGLE else None,
        support_docs=docs_wanted or 1,
    )
    output: type[ItemPlan] | type[SupportDocsPlan] = ItemPlan if docs_wanted is None else SupportDocsPlan
    previous: Plan | None = None
    problems: list[str] = []
    for revision in range(ctx.config.max_revisions + 1):
        last = revision == ctx.config.max_revisions
        outcome = "dropped" if last else "rejected"
        made = ask(
            ctx,
            stage=STAGE,
            role="builder",
            prompt="synth_item_builder" if docs_wanted is None else "synth_item_builder_docs",
            view=builder_view(str(unit["title"] or ""), history, candidates, previous, problems, wanted, docs_wanted),
            output=output,
            check=check,
        )
        if made.value is None:
            problems = [made.problem or "invalid plan"]
            drafts.append(
                draft_event(
                    ctx, stage=STAGE, role="builder", subject=subject, revision=revision, outcome=outcome,
                    final=last, reasons=problems, details={"item_id": item_id}, exchange=made.exchange,
                )
            )
            continue
        plan = made.value
        summary: dict[str, object] = {
            "item_id": item_id,
            **plan.support_details(),
            "fact_ids": plan.fact_ids(),
            "requirements": len(plan.requirements),
            **({"shape": shape_note} if shape_note else {}),
        }
        question = write_question(ctx, STAGE, history, plan)
        result = (
            question
            if isinstance(question, GateFailure)
            else history_gate_and_verify(
                ctx, STAGE, history, plan, question, [candidates[d] for d in plan.support_ids()], seen
            )
        )
        if isinstance(result, GateFailure):
            drafts.append(
                draft_event(
                    ctx, stage=STAGE, role=result.role, subject=subject, revision=revision,
                    outcome=outcome if result.role != "verifier" or last else "revise", final=last,
                    reasons=result.reasons, details={**summary, **result.details}, exchange=result.exchange,
                )
            )
            previous, problems = plan, result.reasons
            continue
        assert isinstance(question, str)
        return _admit(ctx, topic_id, history, plan, question, result, revision, summary, drafts)
    ctx.append(drafts)
    return "dropped"


def _admit(
    ctx: SynthContext,
    topic_id: str,
    history: ProfileHistory,
    plan: Plan,
    question: str,
    result: GateResult,
    revision: int,
    summary: dict[str, object],
    drafts: list[tuple[str, DomainEvent]],
) -> str:
    """Append the admitted item's events after the drafts of its earlier revisions and the verifier's acceptance."""
    item_id = item_id_of(topic_id)
    admitted = "admitted_direct" if revision == 0 else "admitted_after_revision"
    events = item_events(
        ctx,
        item_id=item_id,
        topic_id=topic_id,
        history=history,
        plan=plan,
        question=question,
        gate=result,
        batch="initial",
        labels=[result.label, admitted],
        extra_metadata={"admission": "direct" if revision == 0 else "after_revision"},
    )
    drafts.append(
        draft_event(
            ctx,
            stage=STAGE,
            role="verifier",
            subject=topic_id,
            revision=revision,
            outcome="accepted",
            final=True,
            details={**summary, "label": result.label, "revisions": revision},
            exchange=result.exchange,
        )
    )
    ctx.append([*drafts, *events])
    return "accepted" if revision == 0 else "accepted_after_revision"


def run(ctx: SynthContext, progress: Callable[[str, int, int], None] | None = None) -> StageReport:
    units = topic_units(ctx)
    closed = closed_subjects(ctx, STAGE)
    todo = [u for u in units if str(u["topic_id"]) not in closed]
    report = StageReport(STAGE, planned=len(units), skipped=len(units) - len(todo))
    for outcome in run_units(todo, UnitWork(build_item), ctx, "stage III: items", progress):
        report.count(outcome)
    return report


register_stage(
    SynthesisStage(
        name=STAGE,
        order=40,
        run=run,
        help="Stage III: Builder, question writer, History Gate (blind solver + comparator) and verifier.",
        roles=("builder", "question_writer", "blind_solver", "comparator", "verifier"),
        makes_items=True,
    )
)
