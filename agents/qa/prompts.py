"""The prompts an `eval qa` run uses, resolved from a PromptSet (built-ins, `[prompts.<name>]` of
colabench.toml and `--prompt NAME=PATH[@SHA256]`): the reader of its mode, the key-fact extractor, the
time-range reader (`--time-aware llm`) and the judge of each LongMemEval grading rule. Their hashes go into
the run id (another prompt is another run) and their records (name, version, sha256, source: builtin, a
file, or a verified published prompt) into the QaRunStarted record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.prompts.qa_judging import QA_JUDGE_PROMPTS
from agents.prompts.qa_reading import QA_FACTS, QA_TIME_RANGE
from agents.prompts.registry import PromptSet
from agents.prompts.template import PromptTemplate
from agents.qa.reader import reader_prompt


@dataclass(frozen=True)
class QaPrompts:
    reader: PromptTemplate
    facts: PromptTemplate
    judges: dict[str, PromptTemplate]  # grading rule -> template
    time_range: PromptTemplate = QA_TIME_RANGE

    @classmethod
    def resolve(cls, prompts: PromptSet | None, reader_mode: str) -> QaPrompts:
        chosen = prompts or PromptSet()
        return cls(
            reader=chosen[reader_prompt(reader_mode).name],
            facts=chosen[QA_FACTS.name],
            judges={rule: chosen[t.name] for rule, t in QA_JUDGE_PROMPTS.items()},
            time_range=chosen[QA_TIME_RANGE.name],
        )

    def used(self, key_expansion: str, time_aware: str = "none") -> list[PromptTemplate]:
        """The prompts a run of these options sends (only those: an unused prompt does not change the run id)."""
        return [
            self.reader,
            *self.judges.values(),
            *([self.facts] if key_expansion == "facts" else []),
            *([self.time_range] if time_aware == "llm" else []),
        ]

    def hashes(self, key_expansion: str, time_aware: str = "none") -> dict[str, str]:
        return {t.name: t.sha256 for t in self.used(key_expansion, time_aware)}

    def records(self, key_expansion: str, time_aware: str = "none") -> dict[str, dict[str, Any]]:
        return {t.name: t.record() for t in self.used(key_expansion, time_aware)}
