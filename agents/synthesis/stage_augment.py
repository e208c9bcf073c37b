"""Augmentation: from each accepted initial item, the augmenter derives `augment_per_item` harder items,
either recombining condition dependencies within the item's evidence (same support document) or replacing the
support document with a same-topic candidate the history never exposed. The new plan must depend on at least
two conditions; its question is written anew by the question writer and it passes the History Gate and the
final verifier again. Accepted: ItemCreated (batch "augmented") with its requirements and verifications and an
ItemAugmented event; a failed draft is recorded as dropped."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.synthesis.context import SynthContext
from agents.synthesis.items_gate import GateFailure, history_gate_and_verify, history_seen, write_question
from agents.synthesis.items_plan import (
    Candidate,
    Condition,
    ItemPlan,
    Plan,
    ProfileHistory,
    RequirementPlan,
    SpanPlan,
    SupportDocsPlan,
    candidate_brief,
    check_plan,
    conditions,
    item_events,
    metadata_of,
    profile_history,
    search_candidates,
)
from agents.synthesis.registry import SynthesisStage, register_stage
from agents.synthesis.roles import View, ask, close_unit, draft_event
from agents.synthesis.runner import StageReport, UnitWork, run_units
from agents.synthesis.state import DocText, closed_subjects, documents
from graph.events import DomainEvent, ItemAugmented

STAGE = "augment"
MIN_CONDITIONS = 2


class AugmentPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")
    direction: Literal["recombine", "replace"]
    plan: ItemPlan


class AugmentDocsPlan(BaseModel):
    """The augmenter's reply for items with several support documents."""

    model_config = ConfigDict(extra="forbid")
    direction: Literal["recombine", "replace"]
    plan: SupportDocsPlan


class SourceItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    item_id: str
    question: str
    reference_answer: str
    requirements: list[RequirementPlan]
    support: Candidate


class AugmenterView(View):
    source_item: SourceItem
    conditions: list[Condition]
    exposed_doc_ids: list[str]
    replacement_candidates: list[Candidate]
    variant: int
    min_conditions: int = Field(default=MIN_CONDITIONS)


class SourceItemDocs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    item_id: str
    question: str
    reference_answer: str
    requirements: list[RequirementPlan]
    supports: list[Candidate]


class AugmenterDocsView(View):
    source_item: SourceItemDocs
    conditions: list[Condition]
    exposed_doc_ids: list[str]
    replacement_candidates: list[Candidate]
    variant: int
    min_conditions: int = Field(default=MIN_CONDITIONS)


def augmenter_view(
    source: SourceItem, history: ProfileHistory, replacements: dict[str, DocText], variant: int
) -> AugmenterView:
    return AugmenterView(
        source_item=source,
        conditions=conditions(history),
        exposed_doc_ids=sorted(history.exposed),
        replacement_candidates=[candidate_brief(d) for d in replacements.values()],
        variant=variant,
    )


def _check(
    history: ProfileHistory, support_id: str, options: dict[str, DocText]
) -> Callable[[AugmentPlan], str | None]:
    base = check_plan(history, options, min_conditions=MIN_CONDITIONS)

    def check(value: AugmentPlan) -> str | None:
        sid = value.plan.support_doc_id
        if value.direction == "recombine" and sid != support_id:
            return f"a recombination keeps the support document {support_id!r}; got {sid!r}"
        if value.direction == "replace" and sid == support_id:
            return "a replacement must use one of replacement_candidates, not the current support document"
        return base(value.plan)

    return check


def _check_docs(
    history: ProfileHistory, support_ids: list[str], options: dict[str, DocText]
) -> Callable[[AugmentDocsPlan], str | None]:
    """Several support documents: a recombination keeps them all, a replacement swaps exactly one of them for a
    replacement candidate."""
    base = check_plan(history, options, min_conditions=MIN_CONDITIONS, support_docs=len(support_ids))
    current = set(support_ids)

    def check(value: AugmentDocsPlan) -> str | None:
        new = set(value.plan.support_doc_ids)
        if value.direction == "recombine" and new != current:
            return f"a recombination keeps the support documents {sorted(current)}; got {sorted(new)}"
        if value.direction == "replace" and (len(current - new) != 1 or len(new - current) != 1):
            return (
                f"a replacement swaps exactly one of the support documents {sorted(current)} for one of "
                f"replacement_candidates and keeps the others; got {value.plan.support_doc_ids}"
            )
        return base(value.plan)

    return check


def source_items(ctx: SynthContext) -> list[dict[str, Any]]:
    rows = ctx.query("items_initial", dataset=ctx.config.dataset)
    return [r for r in rows if metadata_of(r["metadata"]).get("synthesis_id") == ctx.synthesis_id]


def _requirements(raw: list[dict[str, Any]]) -> list[RequirementPlan]:
    return [
        RequirementPlan(
            text=str(r["text"] or "-"),
            action=r.get("action"),
            fact_ids=sorted(r["fact_ids"]),
            turn_ids=sorted(r["turn_ids"]),
            spans=[SpanPlan(**s) for s in sorted(r["spans"], key=lambda s: (s["doc_id"], s["start_line"]))],
        )
        for r in raw
    ]


def augment_one(ctx: SynthContext, unit: tuple[dict[str, Any], int]) -> str:
    row, n = unit
    source_id = str(row["item_id"])
    new_id = f"{source_id}-a{n}"
    subject = new_id
    topic_id = str(metadata_of(row["metadata"]).get("topic_id") or "")
    history = profile_history(ctx, str(row["profile_id"]))
    if ctx.config.support_docs > 1:
        return _augment_docs(ctx, row, n, history)
    support_id = str(row["support_doc_ids"][0]) if row["support_doc_ids"] else ""
    support = documents(ctx, [support_id]).get(support_id)
    if support is None:
        return close_unit(
            ctx,
            stage=STAGE,
            role="augmenter",
            subject=subject,
            outcome="dropped",
            reasons=[f"the source item {source_id} has no support document"],
        )
    queries = _replacement_queries(history, topic_id)
    replacements = search_candidates(ctx, queries, history.exposed | {support_id}, ctx.config.candidates_per_item)
    source = SourceItem(
        item_id=source_id,
        question=str(row["question"]),
        reference_answer=str(row["reference_answer"] or ""),
        requirements=_requirements(row["requirements"]),
        support=candidate_brief(support),
    )
    options = {support_id: support, **replacements}
    made = ask(
        ctx,
        stage=STAGE,
        role="augmenter",
        prompt="synth_augmenter",
        view=augmenter_view(source, history, replacements, n),
        output=AugmentPlan,
        check=_check(history, support_id, options),
    )
    return _settle(ctx, made, row, n, history, options)


def _augment_docs(ctx: SynthContext, row: dict[str, Any], n: int, history: ProfileHistory) -> str:
    """`augment_one` for items with several support documents: the source's documents in id order, the
    several-document augmenter prompt and plan."""
    source_id = str(row["item_id"])
    new_id = f"{source_id}-a{n}"
    topic_id = str(metadata_of(row["metadata"]).get("topic_id") or "")
    support_ids = sorted(str(d) for d in row["support_doc_ids"])
    found = documents(ctx, support_ids)
    supports = {d: found[d] for d in support_ids if d in found}
    missing = [d for d in support_ids if d not in supports]
    if not support_ids or missing:
        why = f"support document(s) {missing} are not in the graph" if missing else "no support document"
        return close_unit(
            ctx, stage=STAGE, role="augmenter", subject=new_id, outcome="dropped", reasons=[f"{source_id}: {why}"]
        )
    queries = _replacement_queries(history, topic_id)
    limit = max(ctx.config.candidates_per_item, 2 * ctx.config.support_docs)
    replacements = search_candidates(ctx, queries, history.exposed | set(support_ids), limit)
    source = SourceItemDocs(
        item_id=source_id,
        question=str(row["question"]),
        reference_answer=str(row["reference_answer"] or ""),
        requirements=_requirements(row["requirements"]),
        supports=[candidate_brief(d) for d in supports.values()],
    )
    options = {**supports, **replacements}
    made = ask(
        ctx,
        stage=STAGE,
        role="augmenter",
        prompt="synth_augmenter_docs",
        view=AugmenterDocsView(
            source_item=source,
            conditions=conditions(history),
            exposed_doc_ids=sorted(history.exposed),
            replacement_candidates=[candidate_brief(d) for d in replacements.values()],
            variant=n,
        ),
        output=AugmentDocsPlan,
        check=_check_docs(history, support_ids, options),
    )
    return _settle(ctx, made, row, n, history, options)


def _admit(
    ctx: SynthContext,
    row: dict[str, Any],
    n: int,
    history: ProfileHistory,
    direction: str,
    plan: Plan,
    options: dict[str, DocText],
) -> str:
    """The question writer, the History Gate and the verifier on an augmented plan; its events when admitted."""
    source_id = str(row["item_id"])
    new_id = f"{source_id}-a{n}"
    subject = new_id
    topic_id = str(metadata_of(row["metadata"]).get("topic_id") or "")
    summary: dict[str, object] = {
        "item_id": new_id,
        "from_item_id": source_id,
        "direction": direction,
        **plan.support_details(),
        "fact_ids": plan.fact_ids(),
    }
    question = write_question(ctx, STAGE, history, plan)
    seen = history_seen(ctx, history)
    result = (
        question
        if isinstance(question, GateFailure)
        else history_gate_and_verify(
            ctx, STAGE, history, plan, question, [options[d] for d in plan.support_ids()], seen
        )
    )
    if isinstance(result, GateFailure):
        return close_unit(
            ctx,
            stage=STAGE,
            role=result.role,
            subject=subject,
            outcome="dropped",
            reasons=result.reasons,
            details={**summary, **result.details},
            exchange=result.exchange,
        )
    assert isinstance(question, str)
    events: list[tuple[str, DomainEvent]] = item_events(
        ctx,
        item_id=new_id,
        topic_id=topic_id,
        history=history,
        plan=plan,
        question=question,
        gate=result,
        batch="augmented",
        labels=[result.label, f"augmented_{direction}"],
        extra_metadata={"from_item_id": source_id},
    )
    events.append(
        (
            "augmenter",
            ItemAugmented(
                item_id=new_id,
                from_item_id=source_id,
                direction=direction,
                details={
                    "synthesis_id": ctx.synthesis_id,
                    **plan.support_details(),
                    "fact_ids": plan.fact_ids(),
                },
            ),
        )
    )
    events.append(
        draft_event(
            ctx,
            stage=STAGE,
            role="verifier",
            subject=subject,
            outcome="accepted",
            final=True,
            details={**summary, "label": result.label},
            exchange=result.exchange,
        )
    )
    ctx.append(events)
    return f"accepted_{direction}"


def augment_units(ctx: SynthContext) -> list[tuple[dict[str, Any], int]]:
    """(source item, variant) pairs: `augment_per_item` per initial item, or with a shape target
    round(augmented_per_initial x initial items) of them, variant 0 of every item before any variant 1."""
    rows = source_items(ctx)
    target = ctx.config.target
    if target is None:
        return [(row, n) for row in rows for n in range(ctx.config.augment_per_item)]
    wanted = round(target.augmented_per_initial * len(rows))
    variants = math.ceil(target.augmented_per_initial)
    return [(row, n) for n in range(variants) for row in rows][:wanted]


def run(ctx: SynthContext, progress: Callable[[str, int, int], None] | None = None) -> StageReport:
    units = augment_units(ctx)
    closed = closed_subjects(ctx, STAGE)
    todo = [u for u in units if f"{u[0]['item_id']}-a{u[1]}" not in closed]
    report = StageReport(STAGE, planned=len(units), skipped=len(units) - len(todo))
    for outcome in run_units(todo, UnitWork(augment_one), ctx, "augmentation", progress):
        report.count(outcome)
    return report


def _replacement_queries(history: ProfileHistory, topic_id: str) -> list[str]:
    """What the replacement documents are searched with: the topic's title and the disclosed conditions."""
    topic_title = next((str(s["topic_title"]) for s in history.sessions if s.get("topic_id") == topic_id), "")
    return [topic_title, *[c.text for c in conditions(history)]]


def _settle(
    ctx: SynthContext, made: Any, row: dict[str, Any], n: int, history: ProfileHistory, options: dict[str, Any]
) -> str:
    """An augmenter's reply (one or several support documents): dropped with its problem, or admitted."""
    source_id = str(row["item_id"])
    new_id = f"{source_id}-a{n}"
    if made.value is None:
        return close_unit(
            ctx,
            stage=STAGE,
            role="augmenter",
            subject=new_id,
            outcome="dropped",
            reasons=[made.problem or "invalid augmentation"],
            details={"item_id": new_id, "from_item_id": source_id},
            exchange=made.exchange,
        )
    return _admit(ctx, row, n, history, made.value.direction, made.value.plan, options)


register_stage(
    SynthesisStage(
        name=STAGE,
        order=50,
        run=run,
        help="Augmentation: recombine conditions or replace the support document; gates run again.",
        roles=("augmenter", "question_writer", "blind_solver", "comparator", "verifier"),
        makes_items=True,
    )
)
