"""Judge agreement: Cohen's kappa as defined (po, pe, undefined at pe == 1), its cluster-bootstrap interval,
and a judge panel run on the fake OpenAI server (`judge_models`): two scripted judges that disagree on a known
attempt give the hand-computed kappa, the primary judge's verdicts stay the attempt's verdicts (through a
replay too), and the report lists the disagreement with a link to adjudicate it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.agreement.kappa import cohen_kappa, kappa_with_interval
from agents.agreement.summary import AttemptVerdicts, latest_verdicts, summarise_agreement
from agents.judging.panel import JudgeModelsError, parse_judge_models
from agents.metrics.attempts import RunRecord
from agents.metrics.bootstrap import multiplicities
from graph.store import EventStore

PASS, FAIL, ADJ = "pass", "fail", "needs_adjudication"


def test_kappa_matches_the_hand_computed_value() -> None:
    # A: p p p f, B: p p f f -> po = 3/4, pe = 3/4*1/2 + 1/4*1/2 = 1/2, kappa = (3/4 - 1/2) / (1 - 1/2) = 1/2
    result = cohen_kappa([(PASS, PASS), (PASS, PASS), (PASS, FAIL), (FAIL, FAIL)])
    assert (result.n, result.n_agree) == (4, 3)
    assert result.po == pytest.approx(0.75) and result.pe == pytest.approx(0.5)
    assert result.kappa == pytest.approx(0.5)
    # three labels: po = 2/5; pA = (2, 2, 1)/5, pB = (1, 3, 1)/5 -> pe = (2 + 6 + 1)/25 = 9/25
    three = cohen_kappa([(PASS, PASS), (PASS, FAIL), (FAIL, FAIL), (FAIL, ADJ), (ADJ, FAIL)])
    assert three.po == pytest.approx(0.4) and three.pe == pytest.approx(9 / 25)
    assert three.kappa == pytest.approx((0.4 - 9 / 25) / (1 - 9 / 25))
    # complete disagreement on two labels used equally often: kappa = -1
    assert cohen_kappa([(PASS, FAIL), (FAIL, PASS)]).kappa == pytest.approx(-1.0)


def test_kappa_is_undefined_not_one_when_chance_agreement_is_one() -> None:
    result = kappa_with_interval([(PASS, PASS)] * 6, ["p1", "p1", "p2", "p2", "p3", "p3"], resamples=200)
    assert result.po == 1.0 and result.pe == 1.0
    assert result.kappa is None
    assert result.kappa_interval["estimate"] is None and result.kappa_interval["low"] is None
    empty = cohen_kappa([])
    assert empty.n == 0 and empty.kappa is None and empty.po is None


def test_kappa_interval_resamples_whole_profiles() -> None:
    """The interval equals the percentile interval of kappa recomputed on the pooled pairs of the drawn
    profiles (the documented draws of agents/metrics/bootstrap.py), undefined resamples left out."""
    pairs = [(PASS, PASS), (PASS, FAIL), (FAIL, FAIL), (PASS, PASS), (FAIL, PASS), (FAIL, FAIL), (PASS, PASS)]
    clusters = ["a", "a", "b", "b", "c", "c", "d"]
    result = kappa_with_interval(pairs, clusters, resamples=300, seed=7)
    labels = sorted(set(clusters))
    draws = multiplicities(len(labels), 300, 7)
    values = []
    for row in draws:
        pooled = [
            p
            for label, times in zip(labels, row, strict=True)
            for _ in range(times)
            for p, c in zip(pairs, clusters, strict=True)
            if c == label
        ]
        kappa = cohen_kappa(pooled).kappa
        if kappa is not None:
            values.append(kappa)
    low, high = np.percentile(values, [2.5, 97.5])
    assert result.kappa_interval["low"] == pytest.approx(low)
    assert result.kappa_interval["high"] == pytest.approx(high)
    assert result.kappa_interval["n_clusters"] == 4


def test_parse_judge_models_names_the_problem() -> None:
    assert parse_judge_models("a, b", ("accuracy",)) == ("a", "b")
    assert parse_judge_models(None, ("accuracy",)) == ()
    with pytest.raises(JudgeModelsError, match="listed more than once"):
        parse_judge_models("a,a", ("accuracy",))
    with pytest.raises(JudgeModelsError, match="include the accuracy judge"):
        parse_judge_models("a,b", ("quality",))
    with pytest.raises(JudgeModelsError, match="empty model name"):
        parse_judge_models("a,,b", ("accuracy",))


def test_panel_verdicts_never_count_as_the_primary_judges() -> None:
    judgments = [
        {"model": "a", "prompt_sha256": "s", "verdict": PASS, "details": "{}"},
        {"model": "a", "prompt_sha256": "old", "verdict": FAIL, "details": "{}"},  # another prompt
        {"model": "b", "prompt_sha256": "s", "verdict": FAIL, "details": '{"panel":true}'},
        {"model": "a", "prompt_sha256": "s", "verdict": FAIL, "details": '{"panel":true}'},  # marked: not primary
    ]
    assert latest_verdicts(judgments, "a", ["b"], "s") == {"a": PASS, "b": FAIL}


def _record(models: list[str], n_items: int) -> RunRecord:
    return RunRecord(
        run_id="r",
        method="HYBRID",
        label="No Memory + Hybrid",
        dataset="d",
        batch_id="b",
        status="finished",
        started_seq=1,
        item_ids=[f"i{k}" for k in range(n_items)],
        config={"judge_models": models},
        models={"judge": {"model": models[0]}},
        prompt_hashes={},
        seeds={},
        versions={},
        dataset_fingerprint="x",
    )


def test_judge_vs_human_agreement_where_people_ruled() -> None:
    attempts = [
        AttemptVerdicts(attempt_id="r:i0", item_id="i0", profile_id="p1", verdicts={"a": PASS, "b": PASS}, human=PASS),
        AttemptVerdicts(attempt_id="r:i1", item_id="i1", profile_id="p1", verdicts={"a": ADJ, "b": FAIL}, human=FAIL),
        AttemptVerdicts(attempt_id="r:i2", item_id="i2", profile_id="p2", verdicts={"a": FAIL, "b": FAIL}),
    ]
    data = summarise_agreement(_record(["a", "b"], 3), attempts, resamples=100)
    assert data is not None and data["n_adjudicated"] == 2
    human = {p["judge_a"]: p for p in data["human"]}
    # a vs people: (pass, pass), (needs_adjudication, fail): po 1/2, pe = 1/2*1/2 (pass) = 1/4 -> kappa 1/3
    assert human["a"]["agreement"]["po"] == pytest.approx(0.5)
    assert human["a"]["agreement"]["kappa"] == pytest.approx((0.5 - 0.25) / 0.75)
    assert human["b"]["agreement"]["kappa"] == pytest.approx(1.0)  # b agrees with both rulings
    assert [d["attempt_id"] for d in data["disagreements"]] == ["r:i1"]
    assert data["disagreements"][0]["adjudicate"] == "/adjudicate?attempt=r%3Ai1"
    assert [j["accuracy"] for j in data["judges"]] == [pytest.approx(1 / 3), pytest.approx(1 / 3)]
    # a run with neither a panel nor rulings has no agreement section
    assert summarise_agreement(_record(["a"], 1), attempts[2:], resamples=100) is None


# --- a panel run on the fake server -----------------------------------------------------------------

# support document of each mini item -> verdict of the primary (judge-a) and the panel judge (judge-b)
PRIMARY = {
    "mini-blood-donation": PASS,
    "mini-allergy-testing": PASS,
    "mini-strength-class": PASS,
    "mini-flu-vaccine": FAIL,
}
PANEL = {
    "mini-blood-donation": PASS,
    "mini-allergy-testing": PASS,
    "mini-strength-class": FAIL,
    "mini-flu-vaccine": FAIL,
}
ITEM_OF = {
    "mini-blood-donation": "i-mini-01",
    "mini-allergy-testing": "i-mini-02",
    "mini-strength-class": "i-mini-03",
    "mini-flu-vaccine": "i-mini-04",
}


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config")
def test_two_scripted_judges_give_the_hand_computed_kappa(mini_store: EventStore, tmp_path: Path) -> None:
    from agents.judging.verdicts import latest_accuracy
    from agents.llm.roles import LLMRoles
    from agents.methods import parse_methods
    from agents.metrics.attempts import load_attempt_metrics, load_run_record, summarise_run
    from agents.prompts.registry import PromptSet
    from agents.reports.data import build_report_data
    from agents.reports.html import render_html
    from agents.reports.markdown import render_markdown
    from agents.runs.plan import RunOptions, plan_batch
    from agents.runs.runner import execute_batch
    from agents.runs.state import run_progress
    from graph.replay import drop_projection, replay
    from query.retriever import Retriever
    from tests.fake_openai import FakeOpenAI
    from tests.fake_openai.panel_script import JudgePanelScript
    from tests.fake_openai.policy import AutoPolicy

    script = JudgePanelScript({"judge-a": PRIMARY, "judge-b": PANEL}, fallback=AutoPolicy())
    retriever = Retriever(mini_store.driver, mini_store.encoder)  # type: ignore[arg-type]
    assert mini_store.encoder is not None
    with FakeOpenAI(script) as fake:
        base: dict[str, Any] = {"base_url": fake.base_url, "retry_base_s": 0.0, "timeout_s": 5.0}
        roles = LLMRoles(
            overrides={"answerer": {**base, "model": "fake-model"}, "judge": {**base, "model": "judge-a"}},
            cache_path=tmp_path / "cache.sqlite",
        )
        prompts = PromptSet()
        options = RunOptions(
            dataset="mini", judges=("accuracy", "error_analysis"), judge_models=("judge-a", "judge-b"), fresh=True
        )
        plan = plan_batch(
            mini_store, parse_methods("HYBRID"), options, roles, prompts, encoder_id=mini_store.encoder.encoder_id
        )
        try:
            execute_batch(mini_store, retriever, plan, roles, prompts, concurrency=2)
            asked = sorted(script.asked)
            requests = fake.request_count
            resumed = execute_batch(mini_store, retriever, plan, roles, prompts, concurrency=2)
            assert fake.request_count == requests, "a resumed panel run asks nothing again"
            assert resumed.runs[0].status == "finished"
        finally:
            roles.close()
            retriever.close()
    assert [m for m, _ in asked] == ["judge-a"] * 4 + ["judge-b"] * 4
    run_id = plan.runs[0].run_id

    def mirrored() -> dict[str, str]:
        return {a["item_id"]: a["verdict"] for a in run_progress(mini_store, run_id)["attempts"]}

    primary_by_item = {ITEM_OF[d]: v for d, v in PRIMARY.items()}
    assert mirrored() == primary_by_item  # the panel's later "fail" on i-mini-03 is not the attempt's verdict
    assert latest_accuracy(mini_store, f"{run_id}:i-mini-03")[0] == PASS
    record = load_run_record(mini_store.driver, "neo4j", run_id)
    assert record.config["judge_models"] == ["judge-a", "judge-b"]
    assert record.models["judge@judge-b"]["model"] == "judge-b"
    assert record.models["judge"]["model"] == "judge-a"
    rows = load_attempt_metrics(mini_store.driver, "neo4j", record)
    assert {r.item_id: r.verdict for r in rows} == primary_by_item
    assert summarise_run(record, rows).accuracy == pytest.approx(0.75)
    # the error analysis judged the one attempt the primary judge failed, not the one only the panel failed
    assert sorted(r.item_id for r in rows if r.error_category) == ["i-mini-04"]

    data = build_report_data(mini_store.driver, "neo4j", [run_id], resamples=500, traces=False)
    section = data["sections"]["judge_agreement"]["runs"][0]
    pair = section["pairs"][0]
    assert (pair["judge_a"], pair["judge_b"]) == ("judge-a", "judge-b")
    assert pair["agreement"]["po"] == pytest.approx(0.75) and pair["agreement"]["pe"] == pytest.approx(0.5)
    assert pair["agreement"]["kappa"] == pytest.approx(0.5)
    assert pair["n_clusters"] == 2 and pair["informative"] is False
    assert [(j["model"], j["accuracy"]) for j in section["judges"]] == [("judge-a", 0.75), ("judge-b", 0.5)]
    assert [(d["item_id"], d["verdicts"]) for d in section["disagreements"]] == [
        ("i-mini-03", {"judge-a": PASS, "judge-b": FAIL})
    ]
    html = render_html(data)
    assert "0.500; interval not informative (2 clusters)" in html
    assert f'href="/adjudicate?attempt={run_id}%3Ai-mini-03"' in html
    assert "Judge agreement" in render_markdown(data)
    # App. C.3 on the mini bundle: four tasks, four profile x fact-set groups, each with one reference document
    background = data["sections"]["shared_background"]
    assert (background["n_items"], background["n_groups"], background["n_groups_multi_document"]) == (4, 4, 0)
    assert "Shared background across tasks (App. C.3)" in html

    # rebuilding the projection from the log keeps the primary verdicts on the attempts
    drop_projection(mini_store)
    replay(mini_store, page_size=60)
    assert mirrored() == primary_by_item
