"""`eval qa --system` refuses bad options with one line before it opens the graph or asks an LLM: an unknown
memory system (listing the registered ones), LoCoMo without a system, a k or judge-run count out of range,
and an answer-prompt file whose SHA-256 differs from the pin (both hashes named)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents.prompts.memory_systems_qa import QA_MEMORY_ANSWER_RAW_TURNS, answer_prompt_name
from graph.hashing import text_sha256
from tests.paths import FIXTURES

pytestmark = [pytest.mark.usefixtures("isolated_config")]

LOCOMO = FIXTURES / "locomo" / "locomo_mini.json"


def _invoke(*args: str) -> tuple[int, str]:
    from cli import app

    done = CliRunner().invoke(app, ["eval", "qa", "--dataset", "locomo", "--path", str(LOCOMO), *args])
    assert "Traceback" not in done.output
    return done.exit_code, done.output


def test_an_unknown_system_is_refused_naming_the_registered_ones() -> None:
    code, output = _invoke("--system", "nosuch")
    assert code != 0 and "unknown memory system 'nosuch'" in output and "raw_turns" in output


def test_locomo_without_a_system_says_to_name_one() -> None:
    code, output = _invoke()
    assert code != 0 and "--system NAME" in output


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [("--k", "0", "--k must lie in 1..200"), ("--judge-runs", "0", "--judge-runs must lie in 1..20")],
)
def test_out_of_range_counts_are_refused(option: str, value: str, message: str) -> None:
    code, output = _invoke("--system", "raw_turns", option, value)
    assert code != 0 and message in output


def test_an_answer_prompt_file_with_another_hash_is_refused_with_both(tmp_path: Path) -> None:
    prompt = tmp_path / "answer.txt"
    prompt.write_text(QA_MEMORY_ANSWER_RAW_TURNS.text + "\nAnswer briefly.", encoding="utf-8")
    wrong = "0" * 64
    name = answer_prompt_name("raw_turns")
    code, output = _invoke("--system", "raw_turns", "--prompt", f"{name}={prompt}@{wrong}")
    assert code != 0 and wrong in output and text_sha256(prompt.read_text("utf-8")) in output


def test_every_system_answers_with_its_own_prompt_or_the_generic_one() -> None:
    assert answer_prompt_name("raw_turns") == "qa_memory_answer_raw_turns"
    assert answer_prompt_name("mem0") == "qa_memory_answer_mem0"
    assert answer_prompt_name("a_system_registered_later") == "qa_memory_answer"


def test_an_answer_prompt_file_replaces_the_systems_prompt_and_its_hash_is_what_the_run_records(
    tmp_path: Path,
) -> None:
    from agents.prompts.registry import PromptSet
    from agents.qa.memory_systems import MemoryQaPrompts

    prompt = tmp_path / "answer.txt"
    prompt.write_text(QA_MEMORY_ANSWER_RAW_TURNS.text.replace("word for word", "verbatim"), encoding="utf-8")
    digest = text_sha256(prompt.read_text("utf-8"))
    chosen = MemoryQaPrompts.resolve(
        PromptSet.from_config([f"qa_memory_answer_raw_turns={prompt}@{digest}"]), "raw_turns"
    )
    assert chosen.answer.sha256 == digest and chosen.answer.source == str(prompt)
    # another system keeps its own built-in prompt
    assert MemoryQaPrompts.resolve(PromptSet(), "amem").answer.name == "qa_memory_answer_amem"
