"""Prompts state the protocol, not a known error of one method or one example (issue 22, item 2): no shipped
prompt that a compared method or its judges see names a method or carries a term from the paper's error
analysis and case studies."""

from __future__ import annotations

import re

import pytest

from agents.prompts.registry import builtin_prompts

# Terms of the paper's case studies and error analysis (Sec. 6.4, 6.6, App. E) and the method names.
EXAMPLE_MARKERS = ("opioid", "naloxone", "drug class", "pain medicine", "cancer", "chemotherapy", "radiation")
METHOD_MARKERS = ("memkb", "mem0", "graphiti", "a-mem", "amem", "hybrid", "no_memory", "no memory+")
ID_PATTERN = re.compile(r"\b(?:kb_[0-9a-f]{6,}|kb_web_[0-9a-f]+|item_[0-9a-f]{6,}|tu_[0-9a-f]{6,})")

COMPARED = sorted(name for name in builtin_prompts() if name.startswith(("answer", "state_summary", "judge_", "qa_")))


def _text(name: str) -> str:
    return builtin_prompts()[name].text.lower()


def test_the_compared_prompts_are_found() -> None:
    assert {"answer", "state_summary", "judge_accuracy", "judge_quality_state_fidelity"} <= set(COMPARED)


@pytest.mark.parametrize("name", COMPARED)
def test_no_compared_prompt_anticipates_an_example_or_names_a_method(name: str) -> None:
    text = _text(name)
    found = [m for m in EXAMPLE_MARKERS + METHOD_MARKERS if m in text] + ID_PATTERN.findall(text)
    assert not found, f"prompt {name} carries {found}"


def test_the_state_summary_no_longer_tells_the_model_how_to_word_medicines() -> None:
    text = _text("state_summary")
    assert "widen" not in text and "medicine into" not in text
