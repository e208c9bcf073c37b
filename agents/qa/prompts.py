"""The prompts an `eval qa` run uses, resolved from a PromptSet (built-ins, `[prompts.<name>]` of
colabench.toml and `--prompt NAME=PATH[@SHA256]`): the reader of its mode, the key-fact extractor and the
judge of each LongMemEval grading rule. Their hashes go into the run id (another prompt is another run) and
their records (name, version, sha256, source: builtin, a file, or a verified published prompt) into the
QaRunStarted record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.prompts.qa_judging import QA_JUDGE_PROMPTS
from agents.prompts.qa_reading import QA_FACTS
from agents.prompts.registry import PromptSet
from agents.prompts.template import PromptTemplate
from agents.qa.reader import reader_prompt


@dataclass(frozen=True)
class QaPrompts:
    reader: PromptTemplate
    facts: PromptTemplate
    judges: dict[str, PromptTemplate]  # grading rule -> template

    @classmethod
    def resolve(cls, prompts: PromptSet | None, reader_mode: str) -> QaPrompts:
        chosen = prompts or PromptSet()
        return cls(
            reader=chosen[reader_prompt(reader_mode).name],
            facts=chosen[QA_FACTS.name],
            judges={rule: chosen[t.name] for rule, t in QA_JUDGE_PROMPTS.items()},
        )

    def used(self, key_expansion: str) -> list[PromptTemplate]:
        return [self.reader, *self.judges.values(), *([self.facts] if key_expansion == "facts" else [])]

    def hashes(self, key_expansion: str) -> dict[str, str]:
        return {t.name: t.sha256 for t in self.used(key_expansion)}

    def records(self, key_expansion: str) -> dict[str, dict[str, Any]]:
        return {t.name: t.record() for t in self.used(key_expansion)}
