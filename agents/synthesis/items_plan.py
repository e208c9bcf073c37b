"""What stage III and the augmentation share: a profile's history as the Builder may see it (disclosed
conditions with their source turns, documents already exposed), candidate support documents from the real
search, the item plan a Builder (or augmenter) drafts, its check, and the events of an accepted item."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agents.synthesis.context import SynthContext
from agents.synthesis.state import DocText, documents
from graph.events import DomainEvent, ItemCreated, ItemVerified, KnowledgeSpan, RequirementMapped
from ingest.bundle.shape import MAX_SUPPORT_DOCS

RECIPE = "HYBRID"


# --- the profile's history -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Disclosure:
    fact_id: str
    fact_text: str
    turn_id: str
    turn_text: str
    session_id: str


@dataclass
class ProfileHistory:
    profile_id: str
    name: str
    sessions: list[dict[str, Any]]
    disclosures: list[Disclosure]
    exposed_by_session: dict[str, list[str]]
    last_at: str | None = None
    facts: dict[str, str] = field(default_factory=dict)
    # doc id -> the line ranges the history showed of it (every search snippet and read span)
    exposed_spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)

    @property
    def exposed(self) -> set[str]:
        return {d for ids in self.exposed_by_session.values() for d in ids}

    def turns_of(self, fact_id: str) -> set[str]:
        return {d.turn_id for d in self.disclosures if d.fact_id == fact_id}

    def session_of_turn(self) -> dict[str, str]:
        return {d.turn_id: d.session_id for d in self.disclosures}

    def turn_text(self) -> dict[str, str]:
        return {d.turn_id: d.turn_text for d in self.disclosures}


def profile_history(ctx: SynthContext, profile_id: str) -> ProfileHistory:
    rows = ctx.query("items_profile", profile_id=profile_id)
    profile = rows[0] if rows else {"name": None, "sessions": []}
    disclosures = [
        Disclosure(
            str(r["fact_id"]),
            str(r["fact_text"] or ""),
            str(r["turn_id"]),
            str(r["turn_text"] or ""),
            str(r["session_id"]),
        )
        for r in ctx.query("items_disclosures", profile_id=profile_id)
    ]
    exposed = {
        str(r["session_id"]): sorted(str(d) for d in r["doc_ids"])
        for r in ctx.query("items_exposed", profile_id=profile_id)
    }
    spans: dict[str, list[tuple[int, int]]] = {}
    for r in ctx.query("items_exposed_spans", profile_id=profile_id):
        if r["start_line"] is not None and r["end_line"] is not None:
            spans.setdefault(str(r["doc_id"]), []).append((int(r["start_line"]), int(r["end_line"])))
    times = [str(s["last_at"]) for s in profile["sessions"] if s.get("last_at")]
    return ProfileHistory(
        profile_id=profile_id,
        name=str(profile.get("name") or ""),
        sessions=list(profile["sessions"]),
        disclosures=disclosures,
        exposed_by_session=exposed,
        last_at=max(times) if times else None,
        facts={d.fact_id: d.fact_text for d in disclosures},
        exposed_spans=spans,
    )


def asked_after(last_at: str | None) -> str | None:
    """A time one day after the profile's last turn (None when the history has no times: all of it precedes)."""
    if not last_at:
        return None
    try:
        moment = datetime.fromisoformat(last_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment + timedelta(days=1)).isoformat()


# --- views' parts ------------------------------------------------------------------------------------------


class SourceTurn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    turn_id: str
    text: str


class Condition(BaseModel):
    """A disclosed personal condition and the user turns that disclosed it, verbatim."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    fact_id: str
    text: str
    disclosed_in: list[SourceTurn]


class Candidate(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    doc_id: str
    title: str
    n_lines: int
    excerpt: str


def conditions(history: ProfileHistory) -> list[Condition]:
    by_fact: dict[str, list[SourceTurn]] = {}
    for d in history.disclosures:
        by_fact.setdefault(d.fact_id, [])
        if all(t.turn_id != d.turn_id for t in by_fact[d.fact_id]):
            by_fact[d.fact_id].append(SourceTurn(turn_id=d.turn_id, text=d.turn_text[:1500]))
    return [Condition(fact_id=f, text=history.facts[f], disclosed_in=turns) for f, turns in by_fact.items()]


def candidate_brief(doc: DocText, max_lines: int = 60) -> Candidate:
    return Candidate(
        doc_id=doc.doc_id,
        title=doc.title,
        n_lines=len(doc.lines),
        excerpt=doc.excerpt(1, max_lines=max_lines, max_chars=4000),
    )


def search_candidates(ctx: SynthContext, queries: list[str], avoid: set[str], limit: int) -> dict[str, DocText]:
    """Documents the project's real search finds for `queries`, never one of `avoid`, at most `limit`."""
    found: dict[str, None] = {}
    for query in queries:
        if not query.strip():
            continue
        result = ctx.retriever.search(RECIPE, query[:500], k=min(20, limit * 2 + 1), corpus=ctx.corpus)
        for hit in result.documents:
            if hit.doc_id not in avoid:
                found.setdefault(hit.doc_id)
        if len(found) >= limit:
            break
    ids = list(found)[:limit]
    texts = documents(ctx, ids)
    return {d: texts[d] for d in ids if d in texts}


# --- the plan ------------------------------------------------------------------------------------------------


class SpanPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")
    doc_id: str
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)


class RequirementPlan(BaseModel):
    """One answer requirement e = (r, U, F, K, a)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=1000)
    fact_ids: list[str] = Field(default_factory=list)
    turn_ids: list[str] = Field(default_factory=list)
    spans: list[SpanPlan] = Field(default_factory=list)
    action: str | None = Field(default=None, max_length=300)


# ItemPlan's JSON schema goes with every Builder and augmenter request (no docstring, no field added): with one
# support document per item the requests stay as they were recorded. Two or more use SupportDocsPlan.
class ItemPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")
    intent: str = Field(min_length=1, max_length=1000)
    support_doc_id: str
    reference_answer: str = Field(min_length=1, max_length=4000)
    requirements: list[RequirementPlan] = Field(min_length=1, max_length=8)
    question_type: str = Field(min_length=1, max_length=60)

    def fact_ids(self) -> list[str]:
        return sorted({f for r in self.requirements for f in r.fact_ids})

    def support_ids(self) -> list[str]:
        return [self.support_doc_id]

    def support_details(self) -> dict[str, object]:
        """The support document as drafts and verifications record it."""
        return {"support_doc_id": self.support_doc_id}


class SupportDocsPlan(BaseModel):
    """An item plan with several support documents (`synth --support-docs N`, N >= 2)."""

    model_config = ConfigDict(extra="forbid")
    intent: str = Field(min_length=1, max_length=1000)
    support_doc_ids: list[str] = Field(min_length=1, max_length=MAX_SUPPORT_DOCS)
    reference_answer: str = Field(min_length=1, max_length=4000)
    requirements: list[RequirementPlan] = Field(min_length=1, max_length=8)
    question_type: str = Field(min_length=1, max_length=60)

    def fact_ids(self) -> list[str]:
        return sorted({f for r in self.requirements for f in r.fact_ids})

    def support_ids(self) -> list[str]:
        return list(self.support_doc_ids)

    def support_details(self) -> dict[str, object]:
        return {"support_doc_ids": list(self.support_doc_ids)}


Plan = ItemPlan | SupportDocsPlan


def support_docs_made(wanted: int, candidates: int) -> tuple[int, dict[str, object]]:
    """How many support documents a plan is asked for (`wanted`, fewer when the search found fewer candidates
    the history did not expose), and the note the draft's shape details carry when it is fewer."""
    made = min(wanted, candidates)
    if made == wanted:
        return made, {}
    why = f"the search found {candidates} candidate(s) the history did not expose"
    return made, {"support_docs_wanted": wanted, "support_docs_made": made, "why": why}


def _support_problem(plan: Plan, candidates: dict[str, DocText], exposed: set[str], wanted: int) -> str | None:
    if isinstance(plan, ItemPlan):
        if plan.support_doc_id in exposed:
            return f"support_doc_id {plan.support_doc_id!r} was already shown in the history; choose a candidate"
        if plan.support_doc_id not in candidates:
            return f"support_doc_id {plan.support_doc_id!r} is not one of the candidates {sorted(candidates)}"
        return None
    ids = plan.support_doc_ids
    twice = sorted({d for d in ids if ids.count(d) > 1})
    if twice:
        return f"support_doc_ids names {', '.join(map(repr, twice))} more than once; name each document once"
    for doc_id in ids:
        if doc_id in exposed:
            return f"support document {doc_id!r} was already shown in the history; choose candidates"
        if doc_id not in candidates:
            return f"support document {doc_id!r} is not one of the candidates {sorted(candidates)}"
    if len(ids) != wanted:
        return f"support_doc_ids must name exactly {wanted} documents (support_docs_wanted); it names {len(ids)}"
    return None


def check_plan(
    history: ProfileHistory,
    candidates: dict[str, DocText],
    min_conditions: int = 1,
    max_conditions: int | None = None,
    support_docs: int = 1,
) -> Callable[[Plan], str | None]:
    """The Builder's reply: candidate support documents never exposed (`support_docs` of them for a
    SupportDocsPlan, each cited by a span), disclosed facts cited with the turns that disclosed them, spans
    inside a support document's lines."""
    exposed = history.exposed

    def check(plan: Plan) -> str | None:
        problem = _support_problem(plan, candidates, exposed, support_docs)
        if problem is not None:
            return problem
        supports = {d: candidates[d] for d in plan.support_ids()}
        for n, req in enumerate(plan.requirements):
            for fid in req.fact_ids:
                if fid not in history.facts:
                    return f"requirement {n}: fact {fid!r} is not a disclosed condition"
            allowed = {t for fid in req.fact_ids for t in history.turns_of(fid)}
            for tid in req.turn_ids:
                if tid not in allowed:
                    return f"requirement {n}: turn {tid!r} is not a turn that disclosed its facts {req.fact_ids}"
            for fid in req.fact_ids:
                if not history.turns_of(fid) & set(req.turn_ids):
                    return f"requirement {n}: cite a turn that disclosed fact {fid!r} in turn_ids"
            for span in req.spans:
                doc = supports.get(span.doc_id)
                if doc is None and isinstance(plan, ItemPlan):
                    return f"requirement {n}: span document {span.doc_id!r} must be the support document"
                if doc is None:
                    return (
                        f"requirement {n}: span document {span.doc_id!r} must be one of the support documents "
                        f"{plan.support_ids()}"
                    )
                if span.start_line > span.end_line or span.end_line > len(doc.lines):
                    return (
                        f"requirement {n}: span {span.start_line}-{span.end_line} is outside "
                        f"{span.doc_id}'s lines 1-{len(doc.lines)}"
                    )
        if not any(r.fact_ids for r in plan.requirements):
            return "at least one requirement must depend on a disclosed condition (fact_ids)"
        if not any(r.spans for r in plan.requirements):
            return "at least one requirement must cite lines of the support document (spans)"
        cited = {s.doc_id for r in plan.requirements for s in r.spans}
        uncited = [d for d in plan.support_ids() if d not in cited]
        if uncited:
            return (
                f"support document(s) {', '.join(map(repr, uncited))} are cited by no requirement's spans: every "
                "support document must justify a requirement"
            )
        if len(plan.fact_ids()) < min_conditions:
            return (
                f"the item must depend on at least {min_conditions} distinct conditions; it uses {len(plan.fact_ids())}"
            )
        if max_conditions is not None and len(plan.fact_ids()) > max_conditions:
            return (
                f"the item must depend on exactly {max_conditions} condition(s) (conditions_wanted); it uses "
                f"{len(plan.fact_ids())}: {', '.join(plan.fact_ids())}"
            )
        return None

    return check


# --- the events of an accepted item --------------------------------------------------------------------------


@dataclass(frozen=True)
class GateResult:
    """What the History Gate and the final verifier said about an accepted draft (details without gold)."""

    label: str
    blind_answer: str
    comparator_notes: str
    checks: dict[str, bool]
    verifier_problems: list[str]
    # The final verifier's exchange (the accepted draft's event references it).
    exchange: str | None = None


def item_events(
    ctx: SynthContext,
    *,
    item_id: str,
    topic_id: str,
    history: ProfileHistory,
    plan: Plan,
    question: str,
    gate: GateResult,
    batch: str,
    labels: list[str],
    extra_metadata: dict[str, Any] | None = None,
) -> list[tuple[str, DomainEvent]]:
    sessions = history.session_of_turn()
    turn_sessions = sorted({sessions[t] for r in plan.requirements for t in r.turn_ids if t in sessions})
    history_docs = sorted({d for s in turn_sessions for d in history.exposed_by_session.get(s, [])})
    metadata = {"synthesis_id": ctx.synthesis_id, "topic_id": topic_id, **(extra_metadata or {})}
    out: list[tuple[str, DomainEvent]] = [
        (
            "builder",
            ItemCreated(
                item_id=item_id,
                profile_id=history.profile_id,
                dataset=ctx.config.dataset,
                question=question,
                reference_answer=plan.reference_answer,
                asked_at=asked_after(history.last_at),
                question_type=plan.question_type,
                support_doc_ids=plan.support_ids(),
                history_doc_ids=history_docs,
                batch=batch,
                labels=labels,
                metadata=metadata,
            ),
        )
    ]
    for ordinal, req in enumerate(plan.requirements):
        out.append(
            (
                "builder",
                RequirementMapped(
                    requirement_id=f"{item_id}-r{ordinal}",
                    item_id=item_id,
                    ordinal=ordinal,
                    text=req.text,
                    turn_ids=sorted(set(req.turn_ids)),
                    fact_ids=sorted(set(req.fact_ids)),
                    session_ids=sorted({sessions[t] for t in req.turn_ids if t in sessions}),
                    spans=[
                        KnowledgeSpan(doc_id=s.doc_id, start_line=s.start_line, end_line=s.end_line) for s in req.spans
                    ],
                    action=req.action,
                ),
            )
        )
    out.append(
        (
            "comparator",
            ItemVerified(
                item_id=item_id,
                gate="history_gate",
                verdict=gate.label,
                details={
                    "synthesis_id": ctx.synthesis_id,
                    "blind_answer": gate.blind_answer,
                    "comparator_notes": gate.comparator_notes,
                    **plan.support_details(),
                },
            ),
        )
    )
    out.append(
        (
            "verifier",
            ItemVerified(
                item_id=item_id,
                gate="final_verification",
                verdict="pass",
                details={
                    "synthesis_id": ctx.synthesis_id,
                    "checks": dict(sorted(gate.checks.items())),
                    "reasons": gate.verifier_problems,
                },
            ),
        )
    )
    return out


def metadata_of(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw:
        value = json.loads(raw)
        return value if isinstance(value, dict) else {}
    return {}
