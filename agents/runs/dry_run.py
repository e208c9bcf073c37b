"""`run --dry-run`: what a batch would send, before anything is sent. Nothing goes to any endpoint and nothing
is written to the graph: the plan, the graph's progress and the prompts are read, never appended to.

For each role: the calls the batch would make (a range where the count depends on the model's replies), the
input tokens of the prompts it would build, counted with the answering model's tokenizer as far as it is known
without asking the endpoint (tiktoken for OpenAI model names, else the named WordPiece fallback; the endpoint's
`/tokenize` is not asked), and the output tokens bounded by `max_tokens`. What is counted and what is a bound
or an assumption is said per role (`basis`):

* answerer: the first-round prompt of every attempt to answer is built as the run builds it (system prompt,
  S(H) block, question, tool definitions) and counted; the later tool rounds resend that prompt plus replies
  and tool results, which exist only once the model has asked for them: their input is given as a lower
  bound (the first-round prompt resent per round).
* judges: each judge's first prompt is rendered from the item's reference material, with the attempt's answer
  and tool calls when it is answered already, an empty answer otherwise (so a lower bound); re-asks after an
  invalid reply are in the maximum calls only.
* state summaries: the summary prompt of each profile still to summarise, counted whole.
* memory builds: the pairs not built yet, per system; calls per pair as measured by earlier builds of the same
  system in this graph, unknown otherwise (its prompts live in the memory system's SDK).

Every count assumes no reply comes from the response cache (a cached reply costs nothing).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agents.answerer import AgentTask, AnsweringAgent
from agents.judging.attempt_judge import judge_ids
from agents.judging.base import JudgeCall
from agents.judging.reference import MaterialSource
from agents.judging.registry import selected
from agents.llm.context_size import request_text
from agents.llm.prices import ModelPrice, PriceTable, role_price
from agents.llm.roles import LLMRoles
from agents.llm.settings import LLMRoleSettings
from agents.memory.registry import get_memory_system
from agents.prompts.output import json_object_instruction
from agents.prompts.registry import PromptSet
from agents.prompts.template import render_messages
from agents.runs.attempt import attempt_complete
from agents.runs.attempt_worker import refused_before
from agents.runs.plan import BatchPlan, PlannedRun
from agents.runs.state import ItemContext, item_contexts, memory_build_costs, profile_states, run_progress
from agents.tools.definitions import tool_definition
from graph.store import EventStore
from query.model_tokens import TokenizerChoice, probe_tokenizer
from query.tokens import TokenCounter


@dataclass
class RoleEstimate:
    """What one role would do: calls (min..max), input tokens (counted, and a lower bound at the most calls),
    output tokens bounded by max_tokens, and the basis of each figure."""

    role: str
    model: str | None
    configured: bool
    calls_min: int = 0
    calls_max: int | None = 0  # None: not known beforehand (a memory system's SDK decides)
    tokens_in: int = 0  # counted: the prompts at the fewest calls
    tokens_in_at_max: int | None = 0  # a lower bound of the input at the most calls (None: unknown)
    tokens_out_max: int | None = 0  # max_tokens x the most calls (None: unknown)
    basis: list[str] = field(default_factory=list)

    def add(self, *, calls: int, most_calls: int, tokens: int, tokens_at_most: int, out_at_most: int) -> None:
        """Count `calls` certain calls of `tokens` input, and at most `most_calls` of at least `tokens_at_most`
        input and at most `out_at_most` output."""
        self.calls_min += calls
        self.tokens_in += tokens
        if self.calls_max is not None:
            self.calls_max += most_calls
        if self.tokens_in_at_max is not None:
            self.tokens_in_at_max += tokens_at_most
        if self.tokens_out_max is not None:
            self.tokens_out_max += out_at_most

    def cost(self, price: ModelPrice | None) -> tuple[float, float | None] | None:
        """(low, high) USD: low = the counted input only; high = the input at the most calls plus every reply
        at max_tokens (None when a bound is unknown). None without a price."""
        if price is None:
            return None
        low = price.cost(self.tokens_in, 0)
        if self.tokens_in_at_max is None or self.tokens_out_max is None:
            return low, None
        return low, price.cost(self.tokens_in_at_max, self.tokens_out_max)


@dataclass
class DryRun:
    batch_id: str
    dataset: str
    items: int
    runs: list[str]
    attempts: int
    to_answer: int
    to_judge: int
    roles: list[RoleEstimate]
    tokenizer: str
    prices: dict[str, ModelPrice | None]
    notes: list[str] = field(default_factory=list)

    def totals(self) -> dict[str, Any]:
        """Tokens summed over the roles; cost summed when every role with calls has a price."""
        used = [r for r in self.roles if r.calls_max != 0 or r.calls_min]
        costs = [r.cost(self.prices.get(r.role)) for r in used]
        priced = all(c is not None for c in costs)
        low = sum(c[0] for c in costs if c is not None) if priced else None
        highs = [c[1] for c in costs if c is not None]
        high = sum(h for h in highs if h is not None) if priced and all(h is not None for h in highs) else None
        return {
            "tokens_in": sum(r.tokens_in for r in used),
            "cost_usd_low": low,
            "cost_usd_high": high,
            "unpriced": [
                f"{r.role} ({r.model or 'no model set'})" for r, c in zip(used, costs, strict=True) if c is None
            ],
        }

    def as_dict(self) -> dict[str, Any]:
        roles = []
        for r in self.roles:
            cost = r.cost(self.prices.get(r.role))
            roles.append(
                {
                    "role": r.role, "model": r.model, "configured": r.configured,
                    "calls_min": r.calls_min, "calls_max": r.calls_max,
                    "tokens_in": r.tokens_in, "tokens_in_at_max_lower_bound": r.tokens_in_at_max,
                    "tokens_out_max": r.tokens_out_max,
                    "cost_usd_low": None if cost is None else cost[0],
                    "cost_usd_high": None if cost is None else cost[1],
                    "basis": r.basis,
                }
            )
        return {
            "dry_run": True,
            "batch_id": self.batch_id,
            "dataset": self.dataset,
            "items": self.items,
            "runs": self.runs,
            "attempts": self.attempts,
            "to_answer": self.to_answer,
            "to_judge": self.to_judge,
            "tokenizer": self.tokenizer,
            "roles": roles,
            "totals": self.totals(),
            "notes": self.notes,
        }


class _Captured(Exception):
    def __init__(self, messages: list[dict[str, Any]], schema: dict[str, Any] | None) -> None:
        super().__init__("captured")
        self.messages = messages
        self.schema = schema


class _PromptProbe:
    """Stands where a judge expects its LLM client: the first request is captured (raised), never sent."""

    def __init__(self, settings: LLMRoleSettings) -> None:
        self.settings = settings
        self.model = str(settings.model or "")
        self.role = settings.role

    def structured(self, messages: Any, output: Any, **_: Any) -> Any:
        raise _Captured(list(messages), output.model_json_schema())

    def chat(self, messages: Any, **_: Any) -> Any:
        raise _Captured(list(messages), None)


def _counter(model: str | None) -> TokenizerChoice:
    # No endpoint: the probe uses tiktoken's offline files for an OpenAI model name, else the WordPiece fallback.
    return probe_tokenizer(None, model)


def _count(counter: TokenCounter, request: dict[str, Any]) -> int:
    return counter.count([request_text(request)])[0]


def _structured_text(settings: LLMRoleSettings, messages: list[dict[str, Any]], schema: dict[str, Any] | None) -> dict:
    """The request text a structured call adds: the schema in the system prompt in json_object mode."""
    request: dict[str, Any] = {"messages": messages}
    if schema is not None and settings.structured_mode == "json_object":
        request["messages"] = [*messages, {"role": "system", "content": json_object_instruction(schema)}]
    elif schema is not None:
        request["messages"] = [*messages, {"role": "system", "content": json.dumps(schema)}]
    return request


def estimate_memory_build(store: EventStore, system: str, profiles: list[str], memory: RoleEstimate) -> int:
    """Add to `memory` the calls of building `system`'s memory of `profiles`: the pairs not built yet, times the
    calls and tokens per pair measured by earlier builds of the system in this graph (else at least one call per
    pair, tokens unknown). Returns the pairs still to build."""
    from agents.history import load_public_history
    from agents.memory.pairs import history_pairs

    built = memory_build_costs(store, system, profiles).get("profiles", {})
    pairs = 0
    for p in profiles:
        total = len(history_pairs(load_public_history(store.driver, store.database, p)))
        pairs += max(0, total - int(built.get(p, {}).get("pairs", 0) or 0))
    if not pairs:
        return 0
    measured = memory_build_costs(store, system).get("total", {})
    if measured.get("pairs"):
        per_pair = measured["llm_calls"] / measured["pairs"]
        tokens_per_pair = (measured["tokens_in"] or 0) / measured["pairs"]
        out_per_pair = (measured["tokens_out"] or 0) / measured["pairs"]
        calls, tokens = round(per_pair * pairs), round(tokens_per_pair * pairs)
        memory.add(
            calls=calls, most_calls=calls, tokens=tokens, tokens_at_most=tokens,
            out_at_most=round(out_per_pair * pairs),
        )
        memory.basis.append(
            f"{system}: {pairs} pair(s) to build x {per_pair:.2f} calls and {tokens_per_pair:,.0f} input / "
            f"{out_per_pair:,.0f} output tokens per pair, as measured over {measured['pairs']} pair(s) built "
            "before in this graph (an estimate)"
        )
    else:
        memory.calls_min += pairs  # at least one call per pair
        memory.calls_max = None
        memory.tokens_in_at_max = None
        memory.tokens_out_max = None
        memory.basis.append(
            f"{system}: {pairs} pair(s) to build, at least one call each; calls and tokens per pair unknown "
            "(no earlier build of this system in the graph to measure; its prompts are the SDK's)"
        )
    return pairs


def estimate_batch(store: EventStore, plan: BatchPlan, roles: LLMRoles, prompts: PromptSet) -> DryRun:
    """The dry run of a planned batch (reads only; sends nothing)."""
    from agents.runs.runner import _attempts_to_answer

    notes: list[str] = []
    settings = roles.settings
    answer_counter = _counter(settings["answerer"].model)
    notes.append(f"input tokens counted with {answer_counter.counter.name} (the endpoint's /tokenize is not asked)")
    to_answer = _attempts_to_answer(store, plan, roles, prompts, retry_failed=False)
    contexts = item_contexts(store, plan.item_ids)
    estimates: dict[str, RoleEstimate] = {
        role: RoleEstimate(role, settings[role].model, settings[role].configured)
        for role in ("answerer", "judge", "state", "memory")
    }
    _estimate_memory_builds(store, plan, to_answer, estimates["memory"])
    _estimate_state_summaries(store, plan, to_answer, settings["state"], prompts, estimates["state"])
    tally = _estimate_attempts(store, plan, roles, prompts, to_answer, contexts, answer_counter.counter, estimates)
    if tally.unsummarized:
        notes.append(
            f"{len(tally.unsummarized)} profile(s) have no state summary yet: the S(H) block of their first-round "
            "prompts is counted empty (the summary is made first, so the real prompts are longer)"
        )
    for role, estimate in estimates.items():
        if (estimate.calls_min or estimate.calls_max) and not estimate.configured:
            notes.append(f"role {role!r} has no LLM endpoint configured: a real run needs one (the dry run does not)")
    used = [e for e in estimates.values() if e.calls_min or e.calls_max != 0]
    table: PriceTable = roles.prices
    prices = {e.role: role_price(settings[e.role], table) for e in used}
    return DryRun(
        batch_id=plan.batch_id,
        dataset=plan.dataset,
        items=len(plan.item_ids),
        runs=[r.run_id for r in plan.runs],
        attempts=len(plan.item_ids) * len(plan.runs),
        to_answer=sum(len(v) for v in to_answer.values()),
        to_judge=tally.judged,
        roles=used,
        tokenizer=answer_counter.counter.name,
        prices=prices,
        notes=notes,
    )


def _estimate_memory_builds(
    store: EventStore, plan: BatchPlan, to_answer: dict[str, set[str]], memory: RoleEstimate
) -> None:
    """Prerequisites: the memory builds of the profiles with attempts to answer, per memory system that needs an
    LLM to build."""
    systems = sorted({r.method.memory_system for r in plan.runs if r.method.memory_system})
    for system in systems:
        users = [r for r in plan.runs if r.method.memory_system == system]
        profiles = sorted({plan.profiles[i] for r in users for i in to_answer[r.run_id]})
        if not profiles or not get_memory_system(system).needs_llm:
            continue
        estimate_memory_build(store, system, profiles, memory)


def _estimate_state_summaries(
    store: EventStore,
    plan: BatchPlan,
    to_answer: dict[str, set[str]],
    settings: LLMRoleSettings,
    prompts: PromptSet,
    state: RoleEstimate,
) -> None:
    """Prerequisites: the state summary of every profile with attempts to answer by a method that shows S(H),
    each prompt counted whole."""
    state_users = [r for r in plan.runs if r.method.needs_states]
    state_profiles = sorted({plan.profiles[i] for r in state_users for i in to_answer[r.run_id]})
    if not state_profiles:
        return
    from agents.history import load_public_history, render_history
    from agents.memory.state_summary import MAX_STATES, StateSummaryOut

    counter = _counter(settings.model).counter
    retries = settings.invalid_output_retries
    schema = StateSummaryOut.model_json_schema()
    for profile_id in state_profiles:
        history = render_history(load_public_history(store.driver, store.database, profile_id))
        messages = list(render_messages(prompts["state_summary"], history=history, max_states=MAX_STATES))
        tokens = _count(counter, _structured_text(settings, messages, schema))
        state.add(
            calls=1, most_calls=1 + retries, tokens=tokens, tokens_at_most=tokens * (1 + retries),
            out_at_most=settings.max_tokens * (1 + retries),
        )
    state.basis.append(
        f"{len(state_profiles)} profile(s) to summarise: each summary prompt counted whole; the most calls add "
        f"{retries} re-ask(s) after an invalid reply (the summary is made again on every run: cached replies cost "
        "nothing)"
    )


@dataclass
class _Tally:
    """What estimating the attempts found beside the role figures."""

    judged: int = 0  # attempts the judges would judge
    unsummarized: set[str] = field(default_factory=set)  # profiles whose S(H) block is counted empty
    uncounted: set[str] = field(default_factory=set)  # judges whose prompt could not be counted


@dataclass
class _JudgeProbe:
    """What rendering the judges' first prompts needs, shared by every attempt of the batch."""

    settings: LLMRoleSettings
    counter: TokenCounter
    materials: MaterialSource
    probe: _PromptProbe
    retries: int


def _estimate_attempts(
    store: EventStore,
    plan: BatchPlan,
    roles: LLMRoles,
    prompts: PromptSet,
    to_answer: dict[str, set[str]],
    contexts: dict[str, ItemContext],
    answer_counter: TokenCounter,
    estimates: dict[str, RoleEstimate],
) -> _Tally:
    """The answerer's calls of every attempt to answer, and the judges' of every attempt to judge."""
    options = plan.options
    budget = options.budget
    settings = roles.settings
    answerer = estimates["answerer"]
    judge = estimates["judge"]
    probe = _JudgeProbe(
        settings["judge"],
        _counter(settings["judge"].model).counter,
        MaterialSource(store.driver, store.database, context_budget=options.judge_context_chars),
        _PromptProbe(settings["judge"]),
        settings["judge"].invalid_output_retries,
    )
    tally = _Tally()
    for run in plan.runs:
        progress = {a["item_id"]: a for a in run_progress(store, run.run_id)["attempts"]}
        agent = AnsweringAgent(run.method, None, None, prompts, budget)  # type: ignore[arg-type]
        tools = [tool_definition(b.tool) for b in run.method.tools]
        rounds = budget.max_tool_rounds if tools else 0
        for item_id in plan.item_ids:
            previous = progress.get(item_id)
            if item_id in to_answer[run.run_id]:
                task = _task(store, run, contexts[item_id], tally)
                first = {"messages": agent.first_messages(task), "tools": tools or None}
                tokens = answer_counter.count([request_text(first)])[0]
                answerer.add(
                    calls=1, most_calls=1 + rounds, tokens=tokens, tokens_at_most=tokens * (1 + rounds),
                    out_at_most=settings["answerer"].max_tokens * (1 + rounds),
                )
                recorded: tuple[str, list[dict[str, Any]], str] | None = (item_id, [], "")
            elif attempt_complete(
                previous, run, item_id, options.judges, roles, prompts, options.judge_models[1:]
            ) or (previous is not None and previous.get("status") != "answered" and refused_before(previous)):
                continue
            else:
                recorded = None  # answered: the judges read its real answer and tool calls
            if not options.judges or not settings["judge"].configured:
                continue
            tally.judged += 1
            _estimate_judges(run, item_id, previous, recorded, plan, roles, prompts, probe, judge, tally)
        _add_answerer_basis(answerer, tools, budget.max_tool_rounds)
    answerer.basis.append(f"output: at most max_tokens={settings['answerer'].max_tokens} per call (a bound)")
    if tally.judged:
        judge.basis.append(
            "first prompt of each judge counted (an attempt not answered yet with an empty answer: a lower bound); "
            "judges that need a failed verdict (error analysis) are in the most calls only; the most calls add "
            f"{probe.retries} re-ask(s) after an invalid reply; output at most "
            f"max_tokens={settings['judge'].max_tokens}"
        )
        if tally.uncounted:
            judge.basis.append(
                f"input tokens of {', '.join(sorted(tally.uncounted))} not counted (its prompt needs more)"
            )
    return tally


def _task(store: EventStore, run: PlannedRun, ctx: ItemContext, tally: _Tally) -> AgentTask:
    """The attempt's task as the run builds it (its S(H) states when the method shows them)."""
    states: tuple[Any, ...] = ()
    if run.method.state_in_prompt:
        states = tuple(profile_states(store, ctx.profile_id, ctx.cutoff))
        if not states:
            tally.unsummarized.add(ctx.profile_id)
    return AgentTask(
        item_id=ctx.item_id, profile_id=ctx.profile_id, question=ctx.question, asked_at=ctx.asked_at,
        before_turn_id=ctx.before_turn_id, states=states,
    )


def _add_answerer_basis(answerer: RoleEstimate, tools: list[Any], max_tool_rounds: int) -> None:
    if tools and max_tool_rounds:
        answerer_basis = (
            f"first-round prompts counted; each attempt makes 1 to {1 + max_tool_rounds} calls (up to "
            f"{max_tool_rounds} tool rounds, then the answer); the later rounds' input is a lower bound "
            "(the first-round prompt resent, without the replies and tool results it grows by)"
        )
    else:
        answerer_basis = "one call per attempt (no tool rounds): the prompts are counted whole"
    if answerer_basis not in answerer.basis:
        answerer.basis.append(answerer_basis)


def _estimate_judges(
    run: PlannedRun,
    item_id: str,
    previous: dict[str, Any] | None,
    recorded: tuple[str, list[dict[str, Any]], str] | None,
    plan: BatchPlan,
    roles: LLMRoles,
    prompts: PromptSet,
    probe: _JudgeProbe,
    judge: RoleEstimate,
    tally: _Tally,
) -> None:
    """The calls of every judge still to judge one attempt: its first prompt rendered and counted (the panel's
    models too for the accuracy judge); a judge that needs a failed verdict not known yet in the most calls only."""
    judges = plan.options.judges
    material = probe.materials.material(run.attempt_id(item_id), recorded=recorded)
    traits = material.traits
    have = set((previous or {}).get("judgment_ids") or []) if recorded is None else set()
    wanted = judge_ids(run.attempt_id(item_id), judges, roles, prompts)
    verdict = (previous or {}).get("verdict") if recorded is None else None
    panel = 1 + len(plan.options.judge_models[1:])
    for each in selected(judges):
        if not each.applies_to_item(traits):
            continue
        for kind in each.kinds():
            if wanted[kind] in have:
                continue
            certain = not each.needs_accuracy or (verdict is not None and each.applies(verdict))
            if each.needs_accuracy and verdict is not None and not each.applies(verdict):
                continue
            calls = panel if each.gives_accuracy else 1
            call = JudgeCall(run.attempt_id(item_id), material, probe.probe, prompts, ("fail", ""))  # type: ignore[arg-type]
            tokens = 0
            try:
                each.judge(call, [kind])
                tally.uncounted.add(each.name)  # it made no request through its client
            except _Captured as captured:
                request = _structured_text(probe.settings, captured.messages, captured.schema)
                tokens = _count(probe.counter, request)
            except Exception:
                tally.uncounted.add(each.name)
            most = calls * (1 + probe.retries)
            judge.add(
                calls=calls if certain else 0, most_calls=most, tokens=tokens * calls if certain else 0,
                tokens_at_most=tokens * most, out_at_most=probe.settings.max_tokens * most,
            )
