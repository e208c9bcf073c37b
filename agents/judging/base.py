"""What a judge is: a name (also the AnswerJudged kind and, prefixed with `judge_`, the prompt name), the kind
of verdict it gives, the prompt templates it uses, which attempts it applies to and how it runs. Judges are
registered in `agents.judging.registry`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from agents.judging.item_kinds import ItemTraits
from agents.judging.reference import JudgeMaterial
from agents.llm.client import LLMClient
from agents.prompts.template import PromptTemplate
from graph.errors import ColabenchError
from graph.events import AnswerJudged

if TYPE_CHECKING:
    from agents.prompts.registry import PromptSet

VerdictKind = Literal["verdict", "score", "category"]


def prompt_name_for(kind: str) -> str:
    """The prompt of a verdict kind: `judge_` + the kind, `:` written `_` (quality:x -> judge_quality_x)."""
    return "judge_" + kind.replace(":", "_")


class UndeclaredMetricError(ColabenchError):
    """A judge filled an attempt metric field it does not declare in `Judge.metrics` (a judge module's mistake)."""


@dataclass(frozen=True)
class JudgeCall:
    """One judge's inputs for one attempt; `accuracy` = (verdict, rationale) of the accuracy judge, if known."""

    attempt_id: str
    material: JudgeMaterial
    llm: LLMClient
    prompts: PromptSet
    accuracy: tuple[str | None, str] = (None, "")


class Judge:
    """Base class of a judge. A subclass sets the class attributes and implements `judge`."""

    name: ClassVar[str]
    verdict_kind: ClassVar[VerdictKind]
    description: ClassVar[str] = ""
    # True: its verdict is the attempt's accuracy verdict, which judges after it may depend on
    gives_accuracy: ClassVar[bool] = False
    # True: it only applies to attempts whose accuracy verdict is known (see `applies`)
    needs_accuracy: ClassVar[bool] = False
    # What it produces, declared (as inspect_ai's `@scorer(metrics=...)`): the AttemptMetrics fields its
    # `metric_fields` may fill (agents/metrics/attempts.py refuses any other), and the report section
    # (agents/reports/sections) that lists its verdicts beyond the metric rows, if any.
    metrics: ClassVar[tuple[str, ...]] = ()
    report_section: ClassVar[str | None] = None

    def templates(self) -> tuple[PromptTemplate, ...]:
        """Its built-in prompts, one per verdict kind, named `prompt_name_for(kind)`."""
        raise NotImplementedError

    def kinds(self) -> tuple[str, ...]:
        """The AnswerJudged kinds it writes (default: its name)."""
        return (self.name,)

    def prompt_names(self) -> tuple[str, ...]:
        return tuple(prompt_name_for(k) for k in self.kinds())

    def applies(self, accuracy_verdict: str | None) -> bool:
        """Whether it judges an attempt with this accuracy verdict (None: not judged for accuracy)."""
        return True

    def applies_to_item(self, item: ItemTraits) -> bool:
        """Whether it judges attempts at this item (its question type, labels, metadata); default: every item."""
        return True

    def recorded_prompt_names(self) -> tuple[str, ...]:
        """Every prompt it uses, for the run record (default: one per kind; a judge with more adds them)."""
        return self.prompt_names()

    def judge(self, call: JudgeCall, kinds: list[str]) -> list[AnswerJudged]:
        """Judge the attempt for the given kinds (a subset of `kinds()`); LLM endpoint errors propagate."""
        raise NotImplementedError

    def metric_fields(self, judgment: Mapping[str, Any]) -> dict[str, Any]:
        """What a recorded judgment of this judge contributes to an attempt's metric row (see
        agents/metrics/attempts.py): a mapping of AttemptMetrics field -> value, or {} for nothing; only the fields
        it declares in `metrics`."""
        return {}
