"""The judge registry: every judge a run can ask, in the order they run (a judge that needs the accuracy
verdict comes after the accuracy judge). Planning, execution, metrics and reports loop over it.

To add a judge: write its module (a `Judge` subclass with its prompt templates) and register it here (or call
`register_judge` from a plugin). Its name is the `--judges` name and the AnswerJudged kind; its prompts are
named `judge_<kind>` and are overridable like every built-in prompt.
"""

from __future__ import annotations

from agents.judging.accuracy_judge import AccuracyJudge
from agents.judging.base import Judge, prompt_name_for
from agents.judging.error_analysis_judge import ErrorAnalysisJudge
from agents.judging.quality_judge import QualityJudge
from agents.prompts.template import PromptTemplate


class UnknownJudgeError(ValueError):
    """No registered judge has this name."""


JUDGES: dict[str, Judge] = {}


def register_judge(judge: Judge) -> Judge:
    """Add a judge; its prompts must be named after its kinds (`judge_<kind>`)."""
    names = {t.name for t in judge.templates()}
    missing = [prompt_name_for(k) for k in judge.kinds() if prompt_name_for(k) not in names]
    if missing:
        raise ValueError(f"judge {judge.name!r}: no prompt template named {missing}")
    taken = {k for other in JUDGES.values() if other.name != judge.name for k in other.kinds()}
    clash = sorted(taken & set(judge.kinds()))
    if clash:
        raise ValueError(f"judge {judge.name!r}: verdict kind(s) {clash} belong to another judge")
    JUDGES[judge.name] = judge
    return judge


def unregister_judge(name: str) -> None:
    JUDGES.pop(name, None)


def judge_names() -> tuple[str, ...]:
    return tuple(JUDGES)


def get_judge(name: str) -> Judge:
    judge = JUDGES.get(name)
    if judge is None:
        raise UnknownJudgeError(f"unknown judge {name!r}; choose from {', '.join(JUDGES)}")
    return judge


def judge_for_kind(kind: str) -> Judge | None:
    """The judge that writes AnswerJudged kind `kind` (None for a kind no registered judge writes)."""
    for judge in JUDGES.values():
        if kind in judge.kinds():
            return judge
    return None


def selected(names: tuple[str, ...]) -> list[Judge]:
    """The named judges in registry (run) order; raises UnknownJudgeError for a name not registered."""
    unknown = [n for n in names if n not in JUDGES]
    if unknown:
        raise UnknownJudgeError(f"unknown judge(s) {unknown}; choose from {', '.join(JUDGES)}")
    return [j for j in JUDGES.values() if j.name in names]


def parse_judges(text: str) -> tuple[str, ...]:
    """`accuracy,error_analysis` -> names in registry order; `all` -> every judge; `none` -> ()."""
    value = text.strip().lower()
    if value == "none":
        return ()
    if value == "all":
        return judge_names()
    names = tuple(dict.fromkeys(k.strip() for k in value.split(",") if k.strip()))
    return tuple(j.name for j in selected(names))


def judge_templates() -> list[PromptTemplate]:
    """The prompt templates of every registered judge (built-in prompts of the project)."""
    return [t for judge in JUDGES.values() for t in judge.templates()]


for _judge in (AccuracyJudge(), QualityJudge(), ErrorAnalysisJudge()):
    register_judge(_judge)
