"""Stage II, public interaction: a user Simulator talks with an Assistant, one session per topic.

The Simulator sees its frozen profile (name, description, private facts), the topic and this session's public
dialogue; it writes the next user message, declares which facts the message reveals, and follows up, switches
or ends depending on what the Assistant actually said. A disclosure checker confirms each declared fact
against the message text; only confirmed ones become FactDisclosed. The Assistant sees the public dialogue
only and uses the project's real `kb_search` (recipe HYBRID, restricted to the synthesis KB) and `read`, at
most `assistant_tool_rounds` rounds, then answers without tools; every search result and read span it saw is
a DocumentExposed event of its turn, in call order. The Simulator never sees a tool result.

Units are the topics of the dataset's profiles, sampled without replacement with the synthesis seed; a
profile's sessions get ordinals in the sampled order and run one after another, profiles run concurrently.
An accepted session is ONE append (SessionStarted, TurnAppended, FactDisclosed, DocumentExposed and the final
draft); a Simulator reply that stays invalid closes the topic as a rejected draft with nothing else written.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.prompts.template import render_messages
from agents.synthesis.context import SynthContext
from agents.synthesis.registry import SynthesisStage, register_stage
from agents.synthesis.roles import View, ask, close_unit, draft_event
from agents.synthesis.runner import StageReport, UnitWork, run_units
from agents.synthesis.state import closed_subjects, kb_doc_ids
from agents.tools.definitions import tool_definition
from agents.tools.execution import ToolOutcome, ToolScope, execute_tool, refused_call
from graph.events import DocumentExposed, DomainEvent, FactDisclosed, SessionStarted, ToolCallRecord, TurnAppended
from query.corpus import Corpus
from query.errors import UnknownDocumentError
from query.results import ReadResult
from query.retriever import Retriever

STAGE = "dialogue"
RECIPE = "HYBRID"
ASSISTANT_TOOLS: dict[str, Literal["search", "read"]] = {"kb_search": "search", "read": "read"}
# Synthetic clock: session n of a profile starts BASE_TIME + n days; its turns are TURN_MINUTES apart.
BASE_TIME = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
TURN_MINUTES = 2


# --- records and role outputs -----------------------------------------------------------------------------


class ProfileFact(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    fact_id: str
    text: str
    category: str | None = None


class FrozenProfile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str | None
    description: str | None
    facts: list[ProfileFact]


class TopicBrief(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    title: str
    intent: str
    fact_ids: list[str]


class PublicTurn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    role: Literal["user", "assistant"]
    text: str


class SimulatorTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(max_length=4000)
    disclosed_fact_ids: list[str] = Field(default_factory=list)
    action: Literal["continue", "switch", "end"]


class DisclosureCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fact_id: str
    confirmed: bool
    evidence: str = Field(default="", max_length=2000)


class DisclosureChecks(BaseModel):
    model_config = ConfigDict(extra="forbid")
    checks: list[DisclosureCheck]


class SimulatorView(View):
    profile: FrozenProfile
    topic: TopicBrief
    dialogue: list[PublicTurn]
    user_turns_left: int
    disclosed_so_far: list[str]


class DisclosureView(View):
    turn_text: str
    declared: list[ProfileFact]


class AssistantView(View):
    dialogue: list[PublicTurn]


@dataclass(frozen=True)
class TopicUnit:
    """One session to synthesize: the topic, its profile, and the session's ordinal in that profile."""

    profile_id: str
    topic_id: str
    ordinal: int
    profile: FrozenProfile
    topic: TopicBrief


# --- views: one builder per role --------------------------------------------------------------------------


def simulator_view(unit: TopicUnit, dialogue: list[PublicTurn], turns_left: int, disclosed: list[str]) -> SimulatorView:
    """The frozen profile, the topic and the public dialogue (what each side said; no tool result)."""
    return SimulatorView(
        profile=unit.profile,
        topic=unit.topic,
        dialogue=list(dialogue),
        user_turns_left=turns_left,
        disclosed_so_far=list(disclosed),
    )


def disclosure_checker_view(text: str, declared: list[ProfileFact]) -> DisclosureView:
    return DisclosureView(turn_text=text, declared=list(declared))


def assistant_view(dialogue: list[PublicTurn]) -> AssistantView:
    """The public dialogue only: no fact, no profile name or description, no topic."""
    return AssistantView(dialogue=list(dialogue))


# --- the assistant's tools --------------------------------------------------------------------------------


class KbBackend:
    """The real retriever seen through the tools, limited to the synthesis KB: searches pass its corpus (and
    no profile: the Assistant searches knowledge only); a read of a document outside the KB is refused."""

    def __init__(self, retriever: Retriever, corpus: Corpus, allowed: set[str] | None) -> None:
        self.retriever = retriever
        self.corpus = corpus
        self.allowed = allowed

    def search(
        self,
        recipe: Any,
        query: str,
        *,
        profile_id: str | None = None,
        k: int = 5,
        keywords: list[str] | None = None,
        before_turn_id: str | None = None,
    ) -> Any:
        return self.retriever.search(recipe, query, k=k, keywords=keywords, corpus=self.corpus)

    def read(self, doc_id: str, start_line: int = 1, n_lines: int = 100) -> ReadResult:
        if self.allowed is not None and doc_id not in self.allowed:
            raise UnknownDocumentError(f"document {doc_id!r} is not in the knowledge base of this conversation")
        return self.retriever.read(doc_id, start_line, n_lines)


@dataclass
class AssistantReply:
    text: str
    calls: list[ToolOutcome] = field(default_factory=list)
    rounds: int = 0


def assistant_reply(ctx: SynthContext, backend: KbBackend, dialogue: list[PublicTurn]) -> AssistantReply:
    """The Assistant's answer to the last user message: tool rounds (real kb_search / read), then a final
    answer without tools. Endpoint outages raise (the stage stops; a rerun redoes the session)."""
    messages: list[dict[str, Any]] = list(
        render_messages(ctx.prompts["synth_assistant"], view=assistant_view(dialogue).render())
    )
    client = ctx.client(STAGE, "assistant")
    tools = [tool_definition(name) for name in ASSISTANT_TOOLS]
    cap = ctx.config.caps["assistant"]
    out = AssistantReply(text="")
    nudged = False
    while True:
        offer = out.rounds < ctx.config.assistant_tool_rounds
        if not offer and out.rounds > 0 and not nudged:
            messages.append(render_messages(ctx.prompts["synth_assistant_final"])[0])
            nudged = True
        reply = client.chat(messages, tools=tools if offer else None, max_tokens=cap)
        if offer and reply.tool_calls:
            out.rounds += 1
            messages.append(reply.assistant_message())
            for call in reply.tool_calls:
                if call.name in ASSISTANT_TOOLS:
                    outcome = execute_tool(
                        backend,
                        call.name,
                        call.arguments,
                        recipe=RECIPE,
                        scope=ToolScope(profile_id="synthesis-assistant"),
                    )
                else:
                    outcome = refused_call(
                        call.name,
                        call.arguments,
                        f"unknown tool {call.name!r}; available: {', '.join(ASSISTANT_TOOLS)}",
                    )
                out.calls.append(outcome)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.response})
            continue
        out.text = (reply.content or "").strip()
        return out


def tool_records(calls: list[ToolOutcome]) -> list[ToolCallRecord]:
    """The turn's tool calls as the public history records them (tools named as in a bundle)."""
    return [
        ToolCallRecord(
            tool=ASSISTANT_TOOLS[c.tool],
            arguments=c.arguments,
            returned_doc_ids=[r.id for r in c.returned if r.kind == "document"],
        )
        for c in calls
        if c.tool in ASSISTANT_TOOLS
    ]


def exposures(turn_id: str, calls: list[ToolOutcome]) -> list[DocumentExposed]:
    """Every document span the Assistant saw, in call order: search results with rank and query, read spans."""
    out: list[DocumentExposed] = []
    for call in calls:
        via = ASSISTANT_TOOLS.get(call.tool)
        if via is None or not call.ok:
            continue
        query = call.arguments.get("query") if via == "search" else None
        for ref in call.returned:
            if ref.kind != "document" or ref.start_line is None or ref.end_line is None:
                continue
            out.append(
                DocumentExposed(
                    turn_id=turn_id,
                    doc_id=ref.id,
                    via=via,
                    start_line=ref.start_line,
                    end_line=ref.end_line,
                    query=str(query) if query is not None else None,
                    rank=ref.rank if via == "search" else None,
                )
            )
    return out


# --- units and timestamps ---------------------------------------------------------------------------------


def session_id(topic_id: str) -> str:
    return f"{topic_id}-session"


def turn_id(sid: str, index: int) -> str:
    return f"{sid}-turn{index:02d}"


def session_started_at(ordinal: int) -> datetime:
    return BASE_TIME + timedelta(days=ordinal)


def turn_at(ordinal: int, index: int) -> str:
    """The synthetic time of turn `index` of a profile's session `ordinal` (ISO 8601, UTC)."""
    return _iso(session_started_at(ordinal) + timedelta(minutes=TURN_MINUTES * index))


def history_end(sessions: int) -> datetime:
    """A time after every turn of a profile's first `sessions` sessions (for asking items afterwards)."""
    return session_started_at(sessions)


def _iso(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def topic_units(ctx: SynthContext) -> list[TopicUnit]:
    """The dataset's topics sampled without replacement with the seed; ordinals per profile in that order."""
    rows = ctx.query("dialogue_topics", dataset=ctx.config.dataset)
    rng = random.Random(f"{ctx.config.seed}:topics")
    sampled = rng.sample(rows, len(rows))
    ordinals: dict[str, int] = {}
    units: list[TopicUnit] = []
    for row in sampled:
        pid = str(row["profile_id"])
        ordinal = ordinals.get(pid, 0)
        ordinals[pid] = ordinal + 1
        profile = FrozenProfile(
            name=row["name"],
            description=row["description"],
            facts=[
                ProfileFact(fact_id=str(f["fact_id"]), text=str(f["text"]), category=f["category"])
                for f in row["facts"]
            ],
        )
        topic = TopicBrief(
            title=str(row["title"]),
            intent=str(row["intent"] or ""),
            fact_ids=sorted(str(f) for f in row["topic_fact_ids"]),
        )
        units.append(TopicUnit(pid, str(row["topic_id"]), ordinal, profile, topic))
    return units


# --- one session ------------------------------------------------------------------------------------------


def _check_simulator(fact_ids: set[str], first: bool) -> Callable[[SimulatorTurn], str | None]:
    def check(turn: SimulatorTurn) -> str | None:
        unknown = [f for f in turn.disclosed_fact_ids if f not in fact_ids]
        if unknown:
            return f"disclosed_fact_ids {unknown} are not facts of this profile; facts are {sorted(fact_ids)}"
        if len(set(turn.disclosed_fact_ids)) != len(turn.disclosed_fact_ids):
            return "disclosed_fact_ids lists a fact twice"
        if turn.action == "end":
            if first:
                return "the conversation cannot end before your first message: write it (action continue)"
            if turn.text.strip() or turn.disclosed_fact_ids:
                return "action end takes an empty text and no disclosed_fact_ids"
        elif not turn.text.strip():
            return "text is empty: write your message (or use action end to stop)"
        return None

    return check


def _check_disclosures(declared: set[str]) -> Callable[[DisclosureChecks], str | None]:
    def check(value: DisclosureChecks) -> str | None:
        ids = [c.fact_id for c in value.checks]
        if sorted(ids) != sorted(declared):
            return f"judge exactly the declared facts {sorted(declared)} once each; got {ids}"
        return None

    return check


def confirm_disclosures(
    ctx: SynthContext, text: str, declared: list[ProfileFact]
) -> tuple[list[str], list[str], str | None]:
    """(confirmed ids, unconfirmed ids, problem) for one user message; an invalid checker reply confirms
    nothing (the problem says why)."""
    if not declared:
        return [], [], None
    ids = [f.fact_id for f in declared]
    checked = ask(
        ctx,
        stage=STAGE,
        role="disclosure_checker",
        prompt="synth_disclosure_check",
        view=disclosure_checker_view(text, declared),
        output=DisclosureChecks,
        check=_check_disclosures(set(ids)),
    )
    if checked.value is None:
        return [], ids, checked.problem or "invalid disclosure check"
    verdict = {c.fact_id: c.confirmed for c in checked.value.checks}
    return [i for i in ids if verdict[i]], [i for i in ids if not verdict[i]], None


def synthesize_session(ctx: SynthContext, backend: KbBackend, unit: TopicUnit) -> str:
    """Run one topic's session; returns its outcome (accepted / rejected)."""
    sid = session_id(unit.topic_id)
    facts = {f.fact_id: f for f in unit.profile.facts}
    dialogue: list[PublicTurn] = []
    events: list[tuple[str, DomainEvent]] = [
        (
            "simulator",
            SessionStarted(
                session_id=sid,
                profile_id=unit.profile_id,
                ordinal=unit.ordinal,
                topic_id=unit.topic_id,
                started_at=turn_at(unit.ordinal, 0),
                metadata={"synthesis_id": ctx.synthesis_id},
            ),
        )
    ]
    disclosed: list[str] = []
    unconfirmed: list[dict[str, Any]] = []
    actions: list[str] = []
    exposed: list[str] = []
    tool_calls = 0
    limit = ctx.config.max_user_turns
    # The simulator's last exchange: its request holds the whole dialogue the session ended with.
    last_exchange: str | None = None
    for user_turn in range(limit):
        said = ask(
            ctx,
            stage=STAGE,
            role="simulator",
            prompt="synth_simulator",
            view=simulator_view(unit, dialogue, limit - user_turn, disclosed),
            output=SimulatorTurn,
            check=_check_simulator(set(facts), first=not dialogue),
        )
        last_exchange = said.exchange
        if said.value is None:
            return close_unit(
                ctx,
                stage=STAGE,
                role="simulator",
                subject=unit.topic_id,
                outcome="rejected",
                reasons=[said.problem or "invalid simulator reply"],
                details={"session_id": sid, "profile_id": unit.profile_id, "user_turns_before": user_turn},
                exchange=said.exchange,
            )
        turn = said.value
        if turn.action == "end":
            actions.append("end")
            break
        actions.append(turn.action)
        index = len(dialogue)
        uid = turn_id(sid, index)
        confirmed, refused, problem = confirm_disclosures(ctx, turn.text, [facts[f] for f in turn.disclosed_fact_ids])
        if refused:
            unconfirmed.append({"turn_id": uid, "fact_ids": refused, **({"problem": problem} if problem else {})})
        events.append(
            (
                "simulator",
                TurnAppended(
                    turn_id=uid,
                    session_id=sid,
                    ordinal=index,
                    role="user",
                    text=turn.text.strip(),
                    at=turn_at(unit.ordinal, index),
                    metadata={"simulator_action": turn.action},
                ),
            )
        )
        events.extend(("disclosure_checker", FactDisclosed(fact_id=f, turn_id=uid)) for f in confirmed)
        disclosed.extend(f for f in confirmed if f not in disclosed)
        dialogue.append(PublicTurn(role="user", text=turn.text.strip()))

        reply = assistant_reply(ctx, backend, dialogue)
        if not reply.text:
            return close_unit(
                ctx,
                stage=STAGE,
                role="assistant",
                subject=unit.topic_id,
                outcome="rejected",
                reasons=["the assistant gave an empty final answer"],
                details={"session_id": sid, "profile_id": unit.profile_id, "user_turns_before": user_turn},
            )
        index = len(dialogue)
        aid = turn_id(sid, index)
        events.append(
            (
                "assistant",
                TurnAppended(
                    turn_id=aid,
                    session_id=sid,
                    ordinal=index,
                    role="assistant",
                    text=reply.text,
                    at=turn_at(unit.ordinal, index),
                    tool_calls=tool_records(reply.calls),
                    metadata={"tool_rounds": reply.rounds},
                ),
            )
        )
        shown = exposures(aid, reply.calls)
        events.extend(("assistant", e) for e in shown)
        exposed.extend(e.doc_id for e in shown if e.doc_id not in exposed)
        tool_calls += len(reply.calls)
        dialogue.append(PublicTurn(role="assistant", text=reply.text))
    events.append(
        draft_event(
            ctx,
            stage=STAGE,
            role="simulator",
            subject=unit.topic_id,
            outcome="accepted",
            final=True,
            details={
                "session_id": sid,
                "profile_id": unit.profile_id,
                "ordinal": unit.ordinal,
                "turns": len(dialogue),
                "actions": actions,
                "disclosed_fact_ids": disclosed,
                "unconfirmed": unconfirmed,
                "exposed_doc_ids": exposed,
                "tool_calls": tool_calls,
            },
            exchange=last_exchange,
        )
    )
    ctx.append(events)
    return "accepted"


# --- the stage --------------------------------------------------------------------------------------------


def run(ctx: SynthContext, progress: Callable[[str, int, int], None] | None = None) -> StageReport:
    units = topic_units(ctx)
    closed = closed_subjects(ctx, STAGE)
    todo = [u for u in units if u.topic_id not in closed]
    report = StageReport(STAGE, planned=len(units), skipped=len(units) - len(todo))
    if not units:
        report.extra["note"] = f"no topics in dataset {ctx.config.dataset!r}: run the profiles stage first"
    allowed = set(kb_doc_ids(ctx)) if ctx.config.kb_sources else None
    by_profile: dict[str, list[TopicUnit]] = {}
    for unit in todo:
        by_profile.setdefault(unit.profile_id, []).append(unit)
    work: UnitWork[list[TopicUnit], list[str]] = UnitWork(dialogue_profile, (allowed,))
    for outcomes in run_units(list(by_profile.values()), work, ctx, "stage II: dialogue (profiles)", progress):
        for outcome in outcomes:
            report.count(outcome)
    return report


def dialogue_profile(ctx: SynthContext, units: list[TopicUnit], allowed: set[str] | None) -> list[str]:
    """A profile's sessions in ordinal order, one after another (each sees the clock of its ordinal); the
    outcome of each."""
    backend = KbBackend(ctx.retriever, ctx.corpus, allowed)
    return [synthesize_session(ctx, backend, unit) for unit in sorted(units, key=lambda u: u.ordinal)]


register_stage(
    SynthesisStage(
        name=STAGE,
        order=30,
        run=run,
        help="Stage II: a user Simulator talks with an Assistant that searches and reads the KB.",
        roles=("simulator", "disclosure_checker", "assistant"),
        gold_reasons=False,
    )
)
