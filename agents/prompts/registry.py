"""All built-in prompt templates by name, and `PromptSet`: the templates a run uses, with user files swapped
in. Overrides come from `[prompts.<name>]` tables of colabench.toml (`path`, optional `sha256`) or from
`--prompt NAME=PATH[@SHA256]` on the command line; a SHA-256 (or key) of a known published prompt
(agents/prompts/pins.py) makes the file a verified verbatim prompt."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from agents.prompts.answering import ANSWER, ANSWER_ATTRIBUTION_BLOCK, ANSWER_FINAL, ANSWER_STATE_BLOCK
from agents.prompts.memory_systems_qa import MEMORY_SYSTEMS_QA_PROMPTS
from agents.prompts.output import JSON_OBJECT_INSTRUCTION, STRUCTURED_REPAIR
from agents.prompts.pins import load_override
from agents.prompts.qa_judging import QA_JUDGE_PROMPTS
from agents.prompts.qa_reading import QA_FACTS, QA_READER_DIRECT, QA_READER_NOTES, QA_TIME_RANGE
from agents.prompts.state import STATE_SUMMARY
from agents.prompts.template import PromptError, PromptTemplate
from graph.config_file import read_table

# Used by the LLM client itself for every role; recorded with the run but not replaceable.
_FIXED = frozenset({JSON_OBJECT_INSTRUCTION.name, STRUCTURED_REPAIR.name})

PromptSource = Callable[[], Iterable[PromptTemplate]]
# Templates owned by parts above this one (the judges', agents/judging/registry.py), asked on every listing so
# that what they return may grow (a plug-in judge); the agents room adds the judges' source (agents/__init__.py).
_SOURCES: list[PromptSource] = []


def add_prompt_source(source: PromptSource) -> None:
    """Have `builtin_prompts` list the templates `source()` returns (adding the same source twice is a no-op)."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def builtin_prompts() -> dict[str, PromptTemplate]:
    """Every template of the project by name (the judges' come from the sources added with `add_prompt_source`)."""
    from agents.prompts.synthesis import synthesis_templates

    templates = [
        ANSWER,
        ANSWER_ATTRIBUTION_BLOCK,
        ANSWER_STATE_BLOCK,
        ANSWER_FINAL,
        STATE_SUMMARY,
        *(template for source in _SOURCES for template in source()),
        *synthesis_templates(),
        QA_READER_DIRECT,  # eval qa: readers, key-fact extraction and the per-rule judges
        QA_READER_NOTES,
        QA_FACTS,
        QA_TIME_RANGE,
        *QA_JUDGE_PROMPTS.values(),
        *MEMORY_SYSTEMS_QA_PROMPTS,  # eval qa --system: answer prompts per memory system, the binary judges
        JSON_OBJECT_INSTRUCTION,
        STRUCTURED_REPAIR,
    ]
    return {t.name: t for t in templates}


class PromptSet:
    """The templates in force for a run: built-ins, with any user prompt files in their place."""

    def __init__(self, overrides: Mapping[str, PromptTemplate] | None = None) -> None:
        self._templates = builtin_prompts()
        for name, template in (overrides or {}).items():
            if name not in self._templates:
                raise PromptError(f"unknown prompt {name!r}; prompts are {', '.join(sorted(self._templates))}")
            self._templates[name] = template

    def __getitem__(self, name: str) -> PromptTemplate:
        return self._templates[name]

    def records(self, names: Iterable[str] | None = None) -> dict[str, dict[str, str]]:
        """name -> {name, version, sha256, source} for the run record."""
        wanted = sorted(names) if names is not None else sorted(self._templates)
        return {name: self._templates[name].record() for name in wanted}

    @classmethod
    def from_config(cls, cli_overrides: Iterable[str] = ()) -> PromptSet:
        """Built-ins plus overrides from colabench.toml `[prompts.<name>]` and `NAME=PATH[@SHA256]` strings."""
        builtins = builtin_prompts()
        specs: dict[str, tuple[Path, str | None]] = {}
        table: dict[str, Any] = read_table("prompts")
        for name, entry in table.items():
            if not isinstance(entry, dict) or "path" not in entry:
                raise PromptError(f"[prompts.{name}] in colabench.toml needs a `path` (and optionally `sha256`)")
            specs[name] = (Path(str(entry["path"])), entry.get("sha256"))
        for text in cli_overrides:
            name, sep, rest = text.partition("=")
            if not sep or not rest:
                raise PromptError(f"--prompt {text!r}: expected NAME=PATH or NAME=PATH@SHA256")
            # PATH may hold an @ itself: a file named by the whole text is that file; else the pin follows the last @
            path_text, at, digest_text = rest.rpartition("@")
            if not at or Path(rest).is_file():
                path_text, digest_text = rest, ""
            specs[name.strip()] = (Path(path_text), digest_text or None)
        overrides: dict[str, PromptTemplate] = {}
        for name, (path, digest) in specs.items():
            if name in _FIXED:
                raise PromptError(f"prompt {name!r} is part of the structured-output machinery; it cannot be replaced")
            builtin = builtins.get(name)
            if builtin is None:
                raise PromptError(f"unknown prompt {name!r}; prompts are {', '.join(sorted(builtins))}")
            overrides[name] = load_override(builtin, path, digest)  # a known pin is checked and labelled verbatim
        return cls(overrides)
