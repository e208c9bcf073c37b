"""Stage 0, the document layer: from seed documents of the frozen KB, the linker proposes searches, the
project's real search runs them, and the linker picks knowledge relations among what was found; each accepted
relation is a DocumentsLinked event (actor synthesis:linker) with its description and weight."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from agents.synthesis.context import SynthContext
from agents.synthesis.registry import SynthesisStage, register_stage
from agents.synthesis.roles import View, ask, close_unit, draft_event
from agents.synthesis.runner import StageReport, UnitWork, run_units
from agents.synthesis.state import DocText, closed_subjects, documents, kb_doc_ids, linked_from
from graph.events import DocumentsLinked, DomainEvent

STAGE = "docs"
RECIPE = "HYBRID"


class DocBrief(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    doc_id: str
    title: str
    excerpt: str


class LinkQueryView(View):
    seed: DocBrief


class LinkPickView(View):
    seed: DocBrief
    candidates: list[DocBrief]
    links_wanted: int


class LinkQueries(BaseModel):
    model_config = ConfigDict(extra="forbid")
    queries: list[str] = Field(min_length=1, max_length=3)


class LinkChoice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dst_doc_id: str
    relation: str = Field(min_length=1, max_length=1000)
    weight: float = Field(gt=0.0, le=1.0)


class LinkProposals(BaseModel):
    model_config = ConfigDict(extra="forbid")
    links: list[LinkChoice] = Field(default_factory=list)


# --- views: one builder per role call ----------------------------------------------------------------------


def brief(doc: DocText, max_lines: int = 30) -> DocBrief:
    return DocBrief(doc_id=doc.doc_id, title=doc.title, excerpt=doc.excerpt(1, max_lines=max_lines, max_chars=2500))


def link_query_view(seed: DocText) -> LinkQueryView:
    return LinkQueryView(seed=brief(seed))


def link_pick_view(seed: DocText, candidates: list[DocBrief], wanted: int) -> LinkPickView:
    return LinkPickView(seed=brief(seed), candidates=candidates, links_wanted=wanted)


# --- the stage ---------------------------------------------------------------------------------------------


def seed_documents(ctx: SynthContext) -> list[str]:
    """`seed_docs` documents of the KB, sampled without replacement with the synthesis seed (never a page the web
    stage added, so the sample is the same before and after it)."""
    ids = kb_doc_ids(ctx, with_web=False)
    rng = random.Random(f"{ctx.config.seed}:docs")
    return sorted(rng.sample(ids, min(ctx.config.seed_docs, len(ids))))


def _check_links(candidates: set[str], seed: str, wanted: int) -> Callable[[LinkProposals], str | None]:
    def check(value: LinkProposals) -> str | None:
        seen: set[str] = set()
        for link in value.links:
            if link.dst_doc_id == seed:
                return f"{seed} is the seed document itself; link it only to candidates"
            if link.dst_doc_id not in candidates:
                return f"dst_doc_id {link.dst_doc_id!r} is not one of the candidates {sorted(candidates)}"
            if link.dst_doc_id in seen:
                return f"dst_doc_id {link.dst_doc_id!r} is listed twice"
            if not math.isfinite(link.weight):
                return "weight must be a finite number in (0, 1]"
            seen.add(link.dst_doc_id)
        if len(value.links) > wanted:
            return f"at most {wanted} links are wanted, got {len(value.links)}"
        return None

    return check


def link_one(ctx: SynthContext, seed_id: str) -> str:
    """Link one seed document; returns the outcome (accepted / rejected)."""
    seed = documents(ctx, [seed_id])[seed_id]
    wanted = ctx.config.links_per_doc
    asked = ask(
        ctx, stage=STAGE, role="linker", prompt="synth_link_queries", view=link_query_view(seed), output=LinkQueries
    )
    if asked.value is None:
        return close_unit(
            ctx,
            stage=STAGE,
            role="linker",
            subject=seed_id,
            outcome="rejected",
            reasons=[asked.problem or "no valid queries"],
            exchange=asked.exchange,
        )
    already = linked_from(ctx, [seed_id]).get(seed_id, set())
    found: dict[str, None] = {}
    for query in asked.value.queries:
        result = ctx.retriever.search(RECIPE, query, k=min(20, wanted * 2 + 1), corpus=ctx.corpus)
        for hit in result.documents:
            if hit.doc_id != seed_id and hit.doc_id not in already:
                found.setdefault(hit.doc_id)
    texts = documents(ctx, list(found))
    candidates = [brief(texts[d], max_lines=15) for d in found if d in texts]
    if not candidates:
        return close_unit(
            ctx,
            stage=STAGE,
            role="linker",
            subject=seed_id,
            outcome="rejected",
            reasons=["the searches found no candidate that is not already linked"],
            details={"queries": asked.value.queries},
            exchange=asked.exchange,
        )
    picked = ask(
        ctx,
        stage=STAGE,
        role="linker",
        prompt="synth_link_pick",
        view=link_pick_view(seed, candidates, wanted),
        output=LinkProposals,
        check=_check_links({c.doc_id for c in candidates}, seed_id, wanted),
    )
    if picked.value is None:
        return close_unit(
            ctx,
            stage=STAGE,
            role="linker",
            subject=seed_id,
            outcome="rejected",
            reasons=[picked.problem or "no valid links"],
            exchange=picked.exchange,
        )
    events: list[tuple[str, DomainEvent]] = [
        (
            "linker",
            DocumentsLinked(
                src_doc_id=seed_id, dst_doc_id=link.dst_doc_id, description=link.relation, weight=round(link.weight, 6)
            ),
        )
        for link in picked.value.links
    ]
    events.append(
        draft_event(
            ctx,
            stage=STAGE,
            role="linker",
            subject=seed_id,
            outcome="accepted",
            final=True,
            details={
                "queries": asked.value.queries,
                "candidates": [c.doc_id for c in candidates],
                "linked": [link.dst_doc_id for link in picked.value.links],
            },
            exchange=picked.exchange,
        )
    )
    ctx.append(events)
    return "accepted"


def run(ctx: SynthContext, progress: Callable[[str, int, int], None] | None = None) -> StageReport:
    seeds = seed_documents(ctx)
    closed = closed_subjects(ctx, STAGE)
    todo = [s for s in seeds if s not in closed]
    report = StageReport(STAGE, planned=len(seeds), skipped=len(seeds) - len(todo))
    for outcome in run_units(todo, UnitWork(link_one), ctx, "stage 0: document links", progress):
        report.count(outcome)
    return report


register_stage(
    SynthesisStage(
        name=STAGE,
        order=0,
        run=run,
        help="Stage 0: link seed documents of the KB to related documents the linker found by searching.",
        roles=("linker",),
        gold_reasons=False,
    )
)
