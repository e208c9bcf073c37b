"""Options and files a user gives are refused by name (a ColabenchError the CLI prints as one line), never a
traceback, and a ruling's time has one spelling so the same ruling is one event."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from agents.adjudication.models import AdjudicationRequest
from agents.judging.panel import JudgeModelsError
from agents.prompts.template import PromptError
from graph.errors import ColabenchError, UsageError
from graph.events import AnswerAdjudicated

pytestmark = pytest.mark.usefixtures("isolated_config")


@pytest.mark.parametrize("kappa", [0.0, -1.0, math.nan, math.inf])
def test_an_rrf_constant_that_is_not_finite_and_positive_is_refused(kappa: float) -> None:
    from query.recipes import get_recipe

    with pytest.raises(UsageError, match="kappa must be a finite number > 0"):
        get_recipe("HYBRID").with_kappa(kappa)
    assert get_recipe("HYBRID").with_kappa(30.0).kappa == 30.0


def test_a_config_file_that_is_not_toml_names_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from graph.config_file import read_table

    bad = tmp_path / "colabench.toml"
    bad.write_text("[llm\nbase_url = 1\n")
    monkeypatch.setenv("COLABENCH_CONFIG", str(bad))
    with pytest.raises(UsageError, match=r"colabench\.toml: not valid TOML"):
        read_table("llm")


def test_a_prompt_file_that_is_not_utf8_is_refused_and_a_path_may_hold_an_at_sign(tmp_path: Path) -> None:
    from agents.prompts.registry import PromptSet

    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"Antwort: \xe9\xe8 {question}")
    with pytest.raises(PromptError, match="cannot be read as UTF-8"):
        PromptSet.from_config([f"judge_accuracy={latin}"])
    folder = tmp_path / "v1@2026"
    folder.mkdir()
    (folder / "latin.txt").write_bytes(latin.read_bytes())
    with pytest.raises(PromptError, match=r"v1@2026/latin\.txt .*cannot be read as UTF-8"):
        PromptSet.from_config([f"judge_accuracy={folder / 'latin.txt'}"])


def test_judge_model_options_are_usage_errors() -> None:
    assert issubclass(JudgeModelsError, ColabenchError)


def test_one_instant_spelled_three_ways_is_one_ruling() -> None:
    spellings = ["2026-01-05T10:00:00Z", "2026-01-05T10:00:00+00:00", "2026-01-05 10:00:00+00:00"]
    events = [
        AnswerAdjudicated(
            adjudication_id="a:adjudication:1",
            attempt_id="a",
            judgment_id="j",
            verdict="pass",
            adjudicator="me",
            reason="fine",
            adjudicated_at=at,
        )
        for at in spellings
    ]
    assert {e.adjudicated_at for e in events} == {"2026-01-05T10:00:00+00:00"}
    assert len({e.event_id() for e in events}) == 1


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("reason", "ok\x1b[2J", "control characters"), ("adjudicator", "x" * 201, "at most 200")],
)
def test_a_ruling_with_control_characters_or_an_overlong_name_is_refused(field: str, value: str, message: str) -> None:
    from pydantic import ValidationError

    fields = {"attempt_id": "a", "verdict": "pass", "reason": "fine", "adjudicator": "me", field: value}
    with pytest.raises(ValidationError, match=message):
        AdjudicationRequest(**fields)  # type: ignore[arg-type]
    assert AdjudicationRequest(**{**fields, field: "line one\nline two"}).reason  # type: ignore[arg-type]
