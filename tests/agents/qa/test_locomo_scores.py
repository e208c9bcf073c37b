"""LoCoMo QA scores as the memory-systems harness defines them (issue 24, items 2 and 3): set-overlap token F1
and BLEU-1 on hand-computed cases, category 5 left out, and `eval qa score FILE` over a results file, with a
malformed file refused at its JSON path and field."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents.qa.errors import QaError
from agents.qa.locomo_scores import bleu1_score, f1_score, read_results_file, score_results

F1_CASES = [
    ("7 May 2023", "7 May 2023", 1.0),
    ("", "anything", 0.0),
    ("anything", "", 0.0),
    ("Paris!", "paris.", 1.0),  # punctuation becomes space, case is folded
    ("she went to paris", "paris", 2 * (1 / 4) * 1 / (1 / 4 + 1)),  # P = 1/4, R = 1
    ("the the cat", "the cat sat", 2 * 1 * (2 / 3) / (1 + 2 / 3)),  # sets: {the, cat} vs {the, cat, sat}
    ("May 7, 2023", "7 May 2023", 1.0),  # same token set in another order
    ("dog", "cat", 0.0),
]


@pytest.mark.parametrize(("prediction", "gold", "expected"), F1_CASES)
def test_f1_is_the_set_overlap_of_normalised_tokens(prediction: str, gold: str, expected: float) -> None:
    assert f1_score(prediction, gold) == pytest.approx(expected)


def test_bleu1_is_unigram_precision_with_brevity_penalty() -> None:
    assert bleu1_score("the cat sat", "the cat sat") == pytest.approx(1.0)
    assert bleu1_score("", "the cat") == 0.0
    # 2 of 3 hypothesis unigrams match; hypothesis and reference both 3 tokens: no brevity penalty
    assert bleu1_score("the cat ran", "the cat sat") == pytest.approx(2 / 3)
    # 2 tokens against 4: precision 1, brevity penalty exp(1 - 4/2)
    assert bleu1_score("the cat", "the cat sat down") == pytest.approx(math.exp(1 - 4 / 2))
    assert bleu1_score("Paris.", "paris") < 1.0  # the full stop is a token of its own


def _results(tmp_path: Path, rows: object) -> Path:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


ROWS = {
    "conv-1": [
        {"question": "q1", "answer": "7 May 2023", "response": "7 May 2023", "category": 2, "llm_score": 1},
        {"question": "q2", "answer": "Paris", "response": "London", "category": 1, "llm_score": 0},
        {"question": "q3", "answer": "not mentioned", "response": "Berlin", "category": 5},
    ],
    "conv-2": [{"question": "q4", "answer": "a dog", "response": "a big dog", "category": "4"}],
}


def test_category_five_is_counted_but_never_scored(tmp_path: Path) -> None:
    report = score_results(read_results_file(_results(tmp_path, ROWS)), "results.json")
    assert report.n_questions == 4 and report.n_adversarial == 1
    assert [c.category for c in report.categories] == ["1", "2", "4"]
    assert report.overall.n == 3
    assert report.overall.f1 == pytest.approx((0.0 + 1.0 + 0.8) / 3)  # "a big dog" vs "a dog": P 2/3, R 1
    assert report.overall.j == pytest.approx(0.5) and report.overall.n_j == 2
    assert any("category-5" in n for n in report.notes) and any("BLEU-1 tokens" in n for n in report.notes)


@pytest.mark.parametrize(
    ("rows", "where"),
    [
        ([1, 2], "$: expected an object"),
        ({"c": {"question": "q"}}, "$.c: expected a list"),
        ({"c": [{"question": "q", "answer": "a", "response": "r"}]}, "$.c[0]: category: missing"),
        ({"c": [{"question": "q", "answer": "a", "response": "r", "category": 9}]}, "$.c[0]: category: expected 1-5"),
        ({"c": [{"question": "q", "answer": ["a"], "response": "r", "category": 1}]}, "$.c[0]: answer: expected text"),
    ],
)
def test_a_malformed_results_file_is_refused_at_its_json_path(tmp_path: Path, rows: object, where: str) -> None:
    with pytest.raises(QaError, match=re.escape(f"results.json: {where}")):
        read_results_file(_results(tmp_path, rows))


def test_eval_qa_score_prints_the_table_and_writes_json(tmp_path: Path) -> None:
    from cli import app

    out = tmp_path / "scores.json"
    done = CliRunner().invoke(app, ["eval", "qa", "score", str(_results(tmp_path, ROWS)), "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "overall (1-4)" in done.output and "F1" in done.output
    data = json.loads(out.read_text())
    assert data["n_adversarial"] == 1 and data["overall"]["n"] == 3


def test_eval_qa_without_path_or_subcommand_says_what_it_needs(tmp_path: Path) -> None:
    from cli import app

    done = CliRunner().invoke(app, ["eval", "qa"])
    assert done.exit_code != 0 and "--path" in done.output
