"""LoCoMo QA scores as the memory-systems harness defines them (issue 24, items 2 and 3): set-overlap token F1
and BLEU-1 on hand-computed cases, category 5 left out, and `eval qa score FILE` over a results file, with a
malformed file refused at its JSON path and field; with a judge configured (the fake endpoint), J is the mean
+/- sample std of colabench's binary judge over its runs, category 5 its abstention rate."""

from __future__ import annotations

import json
import math
import re
import statistics
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents.qa.errors import QaError
from agents.qa.locomo_scores import bleu1_score, f1_score, read_results_file, score_results
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.memory_systems_qa_script import MemorySystemsQaScript

pytestmark = [pytest.mark.usefixtures("isolated_config")]

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


# J of a results file by colabench's own judge (the fake's scripted binary judge: CORRECT when the gold text is
# in the response; adversarial: CORRECT when the response declines). Judge run 2 flips q2's verdict.
def _judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, FakeOpenAI]:
    from cli import app

    script = MemorySystemsQaScript(flip={"q2": {2}})
    with FakeOpenAI(script) as fake:
        monkeypatch.setenv("COLABENCH_LLM_JUDGE_BASE_URL", fake.base_url)
        monkeypatch.setenv("COLABENCH_LLM_JUDGE_MODEL", "fake-model")
        monkeypatch.setenv("COLABENCH_LLM_MAX_RETRIES", "0")
        done = CliRunner().invoke(app, ["eval", "qa", "score", *args], env={"COLUMNS": "200"}, terminal_width=200)
    assert "Traceback" not in done.output, done.output
    return done.exit_code, done.output, fake


def test_with_a_judge_configured_j_is_the_mean_and_std_over_judge_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "scores.json"
    code, output, fake = _judged(tmp_path, monkeypatch, str(_results(tmp_path, ROWS)), "--out", str(out))
    assert code == 0, output
    # 4 questions (category 5 included, with the adversarial prompt) x 3 runs, each reaching the endpoint
    assert len(fake.requests) == 4 * 3
    adversarial = [r for r in fake.requests if "trick question" in r["messages"][0]["content"]]
    assert len(adversarial) == 3
    data = json.loads(out.read_text())
    assert data["j_source"] == "judge" and data["judge"]["runs"] == 3 and data["judge"]["invalid"] == 0
    overall = data["overall"]
    # q1 correct every run; q2 wrong except in run 2; q4 ("a dog" not in "a big dog") wrong
    assert overall["j_judge_runs"] == pytest.approx([1 / 3, 2 / 3, 1 / 3])
    assert overall["j_judge"] == pytest.approx(4 / 9)
    assert overall["j_judge_std"] == pytest.approx(statistics.stdev([1 / 3, 2 / 3, 1 / 3]))
    by_category = {c["category"]: c for c in data["categories"]}
    assert by_category["2"]["j_judge_runs"] == [1.0, 1.0, 1.0] and by_category["2"]["j_judge_std"] == 0.0
    assert by_category["1"]["j_judge_runs"] == pytest.approx([0.0, 1.0, 0.0])
    # category 5 apart: "Berlin" does not decline, so the abstention rate is 0 in every run
    assert data["abstention"]["n"] == 1 and data["abstention"]["j_judge_runs"] == [0.0, 0.0, 0.0]
    # the file's own labels stay beside the judge's, and F1 is unchanged
    assert overall["j"] == pytest.approx(0.5) and overall["f1"] == pytest.approx((0.0 + 1.0 + 0.8) / 3)
    # the table may wrap its header at the console width: "J (judge, 3 run(s))" can span two lines
    assert "J (judge, 3" in output and "J (file)" in output and "44.44 ± 19.25" in output
    # no rationale (gold) leaves: the report holds labels only
    assert "run 1" not in out.read_text() and "reason" not in out.read_text()


def test_judge_runs_zero_or_a_malformed_file_sends_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, output, fake = _judged(tmp_path, monkeypatch, str(_results(tmp_path, ROWS)), "--judge-runs", "0")
    assert code == 0 and fake.requests == [] and "J (file)" in output and "J (judge" not in output
    bad = _results(tmp_path, {"c": [{"question": "q", "answer": "a", "response": "r", "category": 9}]})
    code, output, fake = _judged(tmp_path, monkeypatch, str(bad))
    assert code != 0 and "category: expected 1-5" in output and fake.requests == []


def test_without_a_judge_and_without_labels_it_says_j_is_absent(tmp_path: Path) -> None:
    from cli import app

    rows = {"c": [{"question": "q", "answer": "Paris", "response": "Paris", "category": 1}]}
    done = CliRunner().invoke(app, ["eval", "qa", "score", str(_results(tmp_path, rows))])
    assert done.exit_code == 0, done.output
    assert "no J: the file records no labels and no judge is configured" in " ".join(done.output.split())
