"""What a memory judge is: a judge whose target is one part of a memory system's memory for a profile (an
expected memory point or one extracted memory), not an answer. It renders its prompt from the values the
memory-quality pipeline gives it, asks the `judge` role for a structured reply and returns one MemoryJudged
event; a reply that stays invalid after the retries becomes a recorded invalid verdict, never dropped.
Endpoint failures (LLMUnavailableError) propagate: the target stays unjudged and a rerun judges it.

Memory judges live in the same registry as the attempt judges (`agents.judging.registry`), under
`target = "memory"`; their names are the `eval memory --judges` names and their prompts `judge_<name>`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel

from agents.llm.client import LLMClient
from agents.llm.errors import LLMOutputError
from agents.prompts.template import PromptTemplate, render_messages
from graph.events import MemoryJudged
from graph.hashing import text_sha256

if TYPE_CHECKING:
    from agents.prompts.registry import PromptSet

Axis = Literal["integrity", "accuracy", "update", "qa"]
Out = TypeVar("Out", bound=BaseModel)


@dataclass(frozen=True)
class MemoryJudgeCall:
    """One memory judge's inputs for one target: the prompt values, the ids a reply may cite, and whose
    memory it is. `fact_id` / `memory_id` name the target (an expected point or an extracted memory)."""

    system: str
    profile_id: str
    values: dict[str, str]
    llm: LLMClient
    prompts: PromptSet
    fact_id: str | None = None
    memory_id: str | None = None
    item_id: str | None = None  # qa: the question answered from the memories
    memory_ids: frozenset[str] = field(default_factory=frozenset)
    fact_ids: frozenset[str] = field(default_factory=frozenset)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def target_id(self) -> str:
        return self.fact_id or self.memory_id or self.item_id or ""

    def inputs_sha256(self) -> str:
        """A hash of everything the judge sees (so a changed memory is judged again, not looked up)."""
        return text_sha256("\n\x1f".join(f"{k}={v}" for k, v in sorted(self.values.items())))


def memory_judgment_id(call: MemoryJudgeCall, axis: str, template: PromptTemplate) -> str:
    """Stable per (system, axis, target, judge model, prompt, inputs): the same verdict is never asked twice."""
    digest = text_sha256(f"{call.llm.model}|{template.sha256}|{call.inputs_sha256()}")[:12]
    return f"mq:{call.system}:{axis}:{call.target_id}:{digest}"


class MemoryJudge(Generic[Out]):
    """Base class of a memory judge. A subclass sets the class attributes and implements `verdict_fields`
    (and `problem` when a reply can name ids that must be checked)."""

    target: ClassVar[str] = "memory"
    name: ClassVar[str]
    axis: ClassVar[Axis]
    description: ClassVar[str] = ""
    output: type[Out]
    template: ClassVar[PromptTemplate]

    def templates(self) -> tuple[PromptTemplate, ...]:
        return (self.template,)

    def kinds(self) -> tuple[str, ...]:
        return (self.name,)

    def prompt_names(self) -> tuple[str, ...]:
        return (self.template.name,)

    def problem(self, out: Out, call: MemoryJudgeCall) -> str | None:
        """What is wrong with a parsed reply (e.g. an id that is not in the inputs), or None."""
        return None

    def verdict_fields(self, out: Out) -> dict[str, Any]:
        """The MemoryJudged fields of a valid reply (score, category, in_gold, reason, cited ids)."""
        raise NotImplementedError

    def invalid_fields(self) -> dict[str, Any]:
        """The MemoryJudged fields of a reply that stayed invalid (none by default)."""
        return {}

    def common_fields(self, call: MemoryJudgeCall) -> dict[str, Any]:
        """The MemoryJudged fields every verdict of this judge on this target has (ids, model, prompt, hash)."""
        template = call.prompts[self.template.name]
        return {
            "judgment_id": memory_judgment_id(call, self.axis, template),
            "system": call.system,
            "profile_id": call.profile_id,
            "axis": self.axis,
            "fact_id": call.fact_id,
            "memory_id": call.memory_id,
            "item_id": call.item_id,
            "judge_model": call.llm.model,
            "prompt_name": template.name,
            "prompt_version": template.version,
            "prompt_sha256": template.sha256,
            "inputs_sha256": call.inputs_sha256(),
        }

    def judge(self, call: MemoryJudgeCall) -> MemoryJudged:
        template = call.prompts[self.template.name]
        common = self.common_fields(call)
        try:
            reply = call.llm.structured(
                render_messages(template, **call.values),
                self.output,
                name=f"{self.name}_verdict",
                check=lambda out: self.problem(out, call),
            )
        except LLMOutputError as exc:
            return MemoryJudged(
                **common,
                **self.invalid_fields(),
                reason="the judge's reply stayed invalid after every retry",
                valid=False,
                details={**call.details, "problem": str(exc)},
                exchange=exc.exchange,
            )
        return MemoryJudged(
            **common,
            **self.verdict_fields(reply.value),
            exchange=reply.exchange,
            details={
                **call.details,
                "tokens_in": reply.tokens_in,
                "tokens_out": reply.tokens_out,
                "attempts": len(reply.replies),
            },
        )


def unknown_ids(cited: list[str], known: frozenset[str], what: str) -> str | None:
    """A problem naming cited ids that are not among the known ones, or None."""
    unknown = [i for i in cited if i not in known]
    if not unknown:
        return None
    return f"{what} {unknown} are not ids given in the input (use only: {sorted(known)[:40]})"
