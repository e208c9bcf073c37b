"""The answering agent under the paper's budget: at most `max_tool_rounds` rounds of tool calls, then a
final round that offers no tools. Every model call is a turn (the final answer turn included); every tool
call is recorded with its round, ordinal, outcome and returned ids."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from agents.llm.client import LLMClient, Message
from agents.methods.registry import MethodSpec
from agents.prompts.registry import PromptSet
from agents.prompts.template import render_messages
from agents.tools.definitions import tool_definition
from agents.tools.execution import SearchBackend, ToolOutcome, ToolScope, execute_tool, refused_call
from query.results import StateHit


class Budget(BaseModel):
    """The agent budget (paper: 4 tool rounds, then a final answer round)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    max_tool_rounds: int = Field(default=4, ge=0, le=20)
    # None: no cap (the paper has none); a number refuses the calls of a round beyond it
    max_calls_per_round: int | None = Field(default=None, ge=1, le=32)


def render_state(state: StateHit) -> str:
    """One state as a line of the MemKB system prompt: id, text, and whom / when / what is unresolved."""
    extras = []
    if state.concerns:
        extras.append(f"concerns: {state.concerns}")
    if state.time_context:
        extras.append(f"time: {state.time_context}")
    if state.unresolved:
        extras.append("unresolved: " + "; ".join(state.unresolved))
    if state.source_turn_ids:
        extras.append("from turns " + ", ".join(state.source_turn_ids))
    line = f"- [{state.state_id}] {state.text}"
    return line + (" (" + "; ".join(extras) + ")" if extras else "")


@dataclass(frozen=True)
class AgentTask:
    """One item as the agent may see it: the request and whose memory it may search (never gold)."""

    item_id: str
    profile_id: str
    question: str
    asked_at: str | None
    before_turn_id: str | None = None
    states: tuple[StateHit, ...] = ()


@dataclass
class RecordedCall:
    round: int
    ordinal: int
    outcome: ToolOutcome
    # The exchange whose reply asked for this call (None: the client keeps no exchange store).
    exchange: str | None = None


@dataclass
class Transcript:
    answer: str = ""
    rounds: int = 0
    turns: int = 0
    finish: str = "answered"
    tokens_in: int = 0
    tokens_out: int = 0
    calls: list[RecordedCall] = field(default_factory=list)
    cached_turns: int = 0
    tool_seconds: float = 0.0
    # The exchange of the final reply: its request holds the whole conversation (every round before it).
    exchange: str | None = None


class AnsweringAgent:
    """Runs one method's agent on one task; `answer` never writes to the graph (the runner does)."""

    def __init__(
        self, method: MethodSpec, llm: LLMClient, backend: SearchBackend, prompts: PromptSet, budget: Budget
    ) -> None:
        self.method = method
        self.llm = llm
        self.backend = backend
        self.prompts = prompts
        self.budget = budget
        self.tool_defs = [tool_definition(b.tool) for b in method.tools]

    def first_messages(self, task: AgentTask) -> list[Message]:
        state_block = ""
        attribution_block = (
            self.prompts["answer_attribution_block"].render() if self.method.source_attribution else ""
        )
        if self.method.state_in_prompt:
            lines = "\n".join(render_state(s) for s in task.states) or "(no states: the summary is empty)"
            state_block = self.prompts["answer_state_block"].render(states=lines)
        return list(
            render_messages(
                self.prompts["answer"],
                max_rounds=self.budget.max_tool_rounds,
                attribution_block=attribution_block,
                state_block=state_block,
                asked_at=task.asked_at or "at an unknown time",
                question=task.question,
            )
        )

    def answer(self, task: AgentTask) -> Transcript:
        """Run the loop; LLM-layer errors (endpoint down after retries) propagate to the runner."""
        messages = self.first_messages(task)
        scope = ToolScope(profile_id=task.profile_id, before_turn_id=task.before_turn_id)
        out = Transcript()
        nudged = False
        while True:
            offer_tools = out.rounds < self.budget.max_tool_rounds and bool(self.tool_defs)
            if not offer_tools and out.rounds > 0 and not nudged:
                messages.append(
                    {
                        "role": "user",
                        "content": self.prompts["answer_final"].render(max_rounds=self.budget.max_tool_rounds),
                    }
                )
                nudged = True
            reply = self.llm.chat(messages, tools=self.tool_defs if offer_tools else None)
            out.turns += 1
            out.tokens_in += reply.tokens_in
            out.tokens_out += reply.tokens_out
            out.cached_turns += int(reply.cached)
            if offer_tools and reply.tool_calls:
                out.rounds += 1
                messages.append(reply.assistant_message())
                for ordinal, call in enumerate(reply.tool_calls):
                    started = time.perf_counter()
                    refusal = self._refusal(ordinal, call.name)
                    if refusal is not None:
                        outcome = refused_call(call.name, call.arguments, refusal)
                    else:
                        outcome = execute_tool(
                            self.backend,
                            call.name,
                            call.arguments,
                            recipe=self.method.recipe_for(call.name),
                            scope=scope,
                        )
                    out.tool_seconds += time.perf_counter() - started
                    out.calls.append(
                        RecordedCall(round=out.rounds, ordinal=ordinal, outcome=outcome, exchange=reply.exchange)
                    )
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.response})
                continue
            out.exchange = reply.exchange
            out.answer = (reply.content or "").strip()
            if not out.answer:
                out.finish = "empty"
            elif not offer_tools and out.rounds >= self.budget.max_tool_rounds and self.budget.max_tool_rounds > 0:
                out.finish = "forced_final"
            else:
                out.finish = "answered"
            return out

    def _refusal(self, ordinal: int, tool: str) -> str | None:
        """Why a requested call is not run (over the per-round limit, or not a tool of the method), or None."""
        limit = self.budget.max_calls_per_round
        if limit is not None and ordinal >= limit:
            return f"not run: at most {limit} tool calls per round"
        if tool not in self.method.tool_names():
            return f"unknown tool {tool!r}; available: {', '.join(self.method.tool_names())}"
        return None
