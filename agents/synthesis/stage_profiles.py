"""Stage I, profiles: the Director plans a new person from existing profiles and documents of the KB and
creates their Facts (personal conditions, each grounded in a document) and Topics (tied to facts); an
independent reviewer checks consistency, relevance and completeness. A draft sent back is revised up to
`max_revisions` times, then dropped; every outcome is a SynthesisDraftRecorded event and an accepted draft
becomes ProfileCreated, FactRecorded and TopicPlanned events (actor synthesis:director)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.synthesis.context import SynthContext
from agents.synthesis.registry import SynthesisStage, register_stage
from agents.synthesis.roles import View, ask, draft_event
from agents.synthesis.runner import StageReport, UnitWork, run_units
from agents.synthesis.stage_docs import DocBrief, brief
from agents.synthesis.state import closed_subjects, documents, kb_doc_ids
from graph.events import DomainEvent, FactRecorded, ProfileCreated, TopicPlanned

STAGE = "profiles"


class ExistingProfile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str | None
    description: str | None


class FactDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str = Field(pattern=r"^f[0-9]{1,3}$")
    text: str = Field(min_length=1, max_length=500)
    category: str = Field(min_length=1, max_length=40)
    source_doc_id: str


class TopicDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str = Field(pattern=r"^t[0-9]{1,3}$")
    title: str = Field(min_length=1, max_length=300)
    intent: str = Field(min_length=1, max_length=1000)
    fact_keys: list[str] = Field(min_length=1)


class ProfileDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=120)
    description: str = Field(min_length=1, max_length=1000)
    attributes: dict[str, str | int | float | bool] = Field(default_factory=dict)
    facts: list[FactDraft] = Field(min_length=2, max_length=12)
    topics: list[TopicDraft] = Field(min_length=1, max_length=20)


class ProfileReview(BaseModel):
    model_config = ConfigDict(extra="forbid")
    verdict: Literal["accept", "revise", "reject"]
    problems: list[str] = Field(default_factory=list)


class DirectorView(View):
    existing_profiles: list[ExistingProfile]
    documents: list[DocBrief]
    topics_wanted: int
    previous_draft: ProfileDraft | None = None
    revision_problems: list[str] = Field(default_factory=list)


class ReviewerView(View):
    draft: ProfileDraft
    documents: list[DocBrief]
    existing_state: list[str]


# --- views ---------------------------------------------------------------------------------------------------


def director_view(
    existing: list[ExistingProfile],
    docs: list[DocBrief],
    topics_wanted: int,
    previous: ProfileDraft | None = None,
    problems: list[str] | None = None,
) -> DirectorView:
    return DirectorView(
        existing_profiles=existing,
        documents=docs,
        topics_wanted=topics_wanted,
        previous_draft=previous,
        revision_problems=list(problems or []),
    )


def reviewer_view(draft: ProfileDraft, docs: list[DocBrief]) -> ReviewerView:
    # A new profile has no prior state; a profile grown from an existing one would list its facts here.
    return ReviewerView(draft=draft, documents=docs, existing_state=[])


# --- the stage -----------------------------------------------------------------------------------------------


def profile_id(ctx: SynthContext, slot: int) -> str:
    return f"{ctx.config.dataset}-p{slot:03d}"


def _check_draft(doc_ids: set[str], topics_wanted: int) -> Callable[[ProfileDraft], str | None]:
    def check(draft: ProfileDraft) -> str | None:
        keys = [f.key for f in draft.facts]
        if len(set(keys)) != len(keys):
            return "fact keys must be unique"
        for fact in draft.facts:
            if fact.source_doc_id not in doc_ids:
                return f"fact {fact.key}: source_doc_id {fact.source_doc_id!r} is not one of {sorted(doc_ids)}"
        tkeys = [t.key for t in draft.topics]
        if len(set(tkeys)) != len(tkeys):
            return "topic keys must be unique"
        if len(draft.topics) > topics_wanted:
            return f"at most {topics_wanted} topics are wanted, got {len(draft.topics)}"
        for topic in draft.topics:
            unknown = [k for k in topic.fact_keys if k not in keys]
            if unknown:
                return f"topic {topic.key}: fact_keys {unknown} are not fact keys"
        return None

    return check


def profile_documents(ctx: SynthContext, slot: int, kb: list[str]) -> list[str]:
    """The documents one profile is grounded in: a seed document (sampled with the seed) and its strongest
    linked neighbours (stage 0), topped up with further sampled documents."""
    rng = random.Random(f"{ctx.config.seed}:profile:{slot}")
    want = min(ctx.config.docs_per_profile, len(kb))
    seed = rng.choice(kb)
    chosen = [seed]
    for row in ctx.query("linked_neighbours", doc_id=seed):
        if len(chosen) >= want:
            break
        if row["doc_id"] not in chosen:
            chosen.append(str(row["doc_id"]))
    rest = [d for d in kb if d not in chosen]
    chosen.extend(rng.sample(rest, min(want - len(chosen), len(rest))))
    return chosen


def _accepted_events(ctx: SynthContext, pid: str, draft: ProfileDraft) -> list[tuple[str, DomainEvent]]:
    attributes: dict[str, Any] = {**draft.attributes, "synthesis_id": ctx.synthesis_id}
    out: list[tuple[str, DomainEvent]] = [
        (
            "director",
            ProfileCreated(
                profile_id=pid,
                dataset=ctx.config.dataset,
                name=draft.name,
                description=draft.description,
                attributes=attributes,
            ),
        )
    ]
    fact_ids = {f.key: f"{pid}-{f.key}" for f in draft.facts}
    for fact in draft.facts:
        out.append(
            (
                "director",
                FactRecorded(
                    fact_id=fact_ids[fact.key],
                    profile_id=pid,
                    text=fact.text,
                    private=True,
                    category=fact.category,
                    metadata={"source_doc_id": fact.source_doc_id},
                ),
            )
        )
    for topic in draft.topics:
        out.append(
            (
                "director",
                TopicPlanned(
                    topic_id=f"{pid}-{topic.key}",
                    profile_id=pid,
                    title=topic.title,
                    intent=topic.intent,
                    fact_ids=[fact_ids[k] for k in topic.fact_keys],
                ),
            )
        )
    return out


def plan_profile(ctx: SynthContext, slot: int, kb: list[str], existing: list[ExistingProfile]) -> str:
    pid = profile_id(ctx, slot)
    subject = f"profile:{slot}"
    doc_ids = profile_documents(ctx, slot, kb)
    texts = documents(ctx, doc_ids)
    docs = [brief(texts[d], max_lines=25) for d in doc_ids if d in texts]
    check = _check_draft({d.doc_id for d in docs}, ctx.config.topics_per_profile)
    previous: ProfileDraft | None = None
    problems: list[str] = []
    for revision in range(ctx.config.max_revisions + 1):
        last = revision == ctx.config.max_revisions
        made = ask(
            ctx,
            stage=STAGE,
            role="director",
            prompt="synth_director",
            view=director_view(existing, docs, ctx.config.topics_per_profile, previous, problems),
            output=ProfileDraft,
            check=check,
        )
        if made.value is None:
            ctx.append(
                [
                    draft_event(
                        ctx,
                        stage=STAGE,
                        role="director",
                        subject=subject,
                        revision=revision,
                        outcome="dropped" if last else "rejected",
                        final=last,
                        reasons=[made.problem or "invalid draft"],
                        exchange=made.exchange,
                    )
                ]
            )
            if last:
                return "dropped"
            problems = [made.problem or "invalid draft"]
            continue
        draft = made.value
        review = ask(
            ctx,
            stage=STAGE,
            role="reviewer",
            prompt="synth_profile_review",
            view=reviewer_view(draft, docs),
            output=ProfileReview,
        )
        summary = {
            "profile_id": pid,
            "facts": len(draft.facts),
            "topics": len(draft.topics),
            "documents": [d.doc_id for d in docs],
        }
        if review.value is None:
            verdict, reasons = "revise", [review.problem or "the review was invalid"]
        else:
            verdict, reasons = review.value.verdict, review.value.problems
        if verdict == "accept":
            ctx.append(
                [
                    *_accepted_events(ctx, pid, draft),
                    draft_event(
                        ctx,
                        stage=STAGE,
                        role="reviewer",
                        subject=subject,
                        revision=revision,
                        outcome="accepted",
                        final=True,
                        details={**summary, "revisions": revision},
                        exchange=review.exchange,
                    ),
                ]
            )
            return "accepted" if revision == 0 else "accepted_after_revision"
        final = last or verdict == "reject"
        ctx.append(
            [
                draft_event(
                    ctx,
                    stage=STAGE,
                    role="reviewer",
                    subject=subject,
                    revision=revision,
                    outcome=("dropped" if final else "revise"),
                    final=final,
                    reasons=reasons,
                    details={**summary, "verdict": verdict},
                    exchange=review.exchange,
                )
            ]
        )
        if final:
            return "dropped"
        previous, problems = draft, reasons
    return "dropped"


def run(ctx: SynthContext, progress: Callable[[str, int, int], None] | None = None) -> StageReport:
    kb = kb_doc_ids(ctx)
    existing = [
        ExistingProfile(name=r["name"], description=r["description"]) for r in ctx.query("profiles", dataset=None)
    ]
    closed = closed_subjects(ctx, STAGE)
    slots = list(range(ctx.config.profiles))
    todo = [s for s in slots if f"profile:{s}" not in closed]
    report = StageReport(STAGE, planned=len(slots), skipped=len(slots) - len(todo))
    for outcome in run_units(todo, UnitWork(plan_profile, (kb, existing)), ctx, "stage I: profiles", progress):
        report.count(outcome)
    return report


register_stage(
    SynthesisStage(
        name=STAGE,
        order=20,
        run=run,
        help="Stage I: the Director drafts profiles (facts grounded in documents, topics); a reviewer checks.",
        roles=("director", "reviewer"),
        gold_reasons=False,
        review_role="reviewer",
    )
)
