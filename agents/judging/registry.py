"""The judge registry: every judge a run can ask, in the order they run (a judge that needs the accuracy
verdict comes after the accuracy judge). Planning, execution, metrics and reports loop over it.

To add a judge: write its module (a `Judge` subclass with its prompt templates, declaring the metric fields and
the report section it produces) and register it here, or call `register_judge` from a plug-in module named in
COLABENCH_PLUGINS (graph/plugins.py; the look-ups below load plug-ins first). Its name is the `--judges` name and
the AnswerJudged kind; its prompts are named `judge_<kind>` and are overridable like every built-in prompt. What
a report section or the metric rows list comes from here (`section_judges`, `section_kinds`, `judge_metrics`).

Judges have a target: `attempt` judges (JUDGES) judge an answer of a run; `memory` judges (MEMORY_JUDGES,
`agents.judging.memory_base`) judge a memory system's memory for `./colabench eval memory`. One registration
function takes both; names, verdict kinds and prompt names are unique across them.
"""

from __future__ import annotations

from agents.judging.abstention_judge import AbstentionJudge
from agents.judging.accuracy_judge import AccuracyJudge
from agents.judging.base import Judge, prompt_name_for
from agents.judging.error_analysis_judge import ErrorAnalysisJudge
from agents.judging.gotcha_judge import GotchaJudge
from agents.judging.memory_accuracy_judge import MemoryAccuracyJudge
from agents.judging.memory_base import MemoryJudge
from agents.judging.memory_integrity_judge import MemoryIntegrityJudge
from agents.judging.memory_qa_judge import MemoryQaJudge
from agents.judging.memory_update_judge import MemoryUpdateJudge
from agents.judging.quality_judge import QualityJudge
from agents.prompts.template import PromptTemplate
from graph.errors import BadInputError
from graph.plugins import load_plugins


class UnknownJudgeError(BadInputError):
    """No registered judge has this name."""


JUDGES: dict[str, Judge] = {}
MEMORY_JUDGES: dict[str, MemoryJudge] = {}


def register_judge(judge: Judge | MemoryJudge) -> Judge | MemoryJudge:
    """Add a judge (to JUDGES or MEMORY_JUDGES by its `target`); its prompts must be named after its kinds
    (`judge_<kind>`)."""
    names = {t.name for t in judge.templates()}
    missing = [prompt_name_for(k) for k in judge.kinds() if prompt_name_for(k) not in names]
    if missing:
        raise ValueError(f"judge {judge.name!r}: no prompt template named {missing}")
    everyone: list[Judge | MemoryJudge] = [*JUDGES.values(), *MEMORY_JUDGES.values()]
    taken = {k for other in everyone if other.name != judge.name for k in other.kinds()}
    clash = sorted(taken & set(judge.kinds()))
    if clash:
        raise ValueError(f"judge {judge.name!r}: verdict kind(s) {clash} belong to another judge")
    if isinstance(judge, MemoryJudge):
        MEMORY_JUDGES[judge.name] = judge
    else:
        JUDGES[judge.name] = judge
    return judge


def unregister_judge(name: str) -> None:
    JUDGES.pop(name, None)
    MEMORY_JUDGES.pop(name, None)


def judge_names() -> tuple[str, ...]:
    load_plugins()
    return tuple(JUDGES)


def get_judge(name: str) -> Judge:
    if name not in JUDGES:
        load_plugins()
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
    load_plugins()
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


def section_judges(section: str) -> list[Judge]:
    """The attempt judges that declare `section` as their report section, in registry order."""
    load_plugins()
    return [judge for judge in JUDGES.values() if judge.report_section == section]


def section_kinds(section: str) -> tuple[str, ...]:
    """The AnswerJudged kinds a report section lists: every kind of the judges that declare it."""
    return tuple(kind for judge in section_judges(section) for kind in judge.kinds())


def judge_metrics() -> dict[str, tuple[str, ...]]:
    """Judge name -> the AttemptMetrics fields it declares it fills (attempt judges, registry order)."""
    load_plugins()
    return {name: judge.metrics for name, judge in JUDGES.items()}


def judge_templates() -> list[PromptTemplate]:
    """The prompt templates of every registered judge, attempt and memory judges (built-in prompts)."""
    load_plugins()
    everyone: list[Judge | MemoryJudge] = [*JUDGES.values(), *MEMORY_JUDGES.values()]
    return [t for judge in everyone for t in judge.templates()]


def parse_memory_judges(text: str) -> list[MemoryJudge]:
    """`integrity,accuracy` (with or without the `memory_` prefix) -> the memory judges in registry order;
    `all` -> every memory judge; `none` -> []. Raises UnknownJudgeError for a name not registered."""
    value = text.strip().lower()
    if value == "none":
        return []
    if value == "all":
        return list(MEMORY_JUDGES.values())
    names = [k.strip() for k in value.split(",") if k.strip()]
    full = [n if n in MEMORY_JUDGES else f"memory_{n}" for n in names]
    unknown = [n for n, f in zip(names, full, strict=True) if f not in MEMORY_JUDGES]
    if unknown:
        raise UnknownJudgeError(f"unknown memory judge(s) {unknown}; choose from {', '.join(MEMORY_JUDGES)} or all")
    return [j for j in MEMORY_JUDGES.values() if j.name in full]


for _judge in (AccuracyJudge(), QualityJudge(), ErrorAnalysisJudge()):
    register_judge(_judge)
for _premise_judge in (AbstentionJudge(), GotchaJudge()):  # only abstention / gotcha items (judging/item_kinds.py)
    register_judge(_premise_judge)
for _memory_judge in (MemoryIntegrityJudge(), MemoryAccuracyJudge(), MemoryUpdateJudge(), MemoryQaJudge()):
    register_judge(_memory_judge)
