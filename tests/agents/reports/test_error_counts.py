"""The report's error figures (issue 30, item 7), on the real Neo4j with the `mini` bundle and the fake OpenAI
server: a run with no answered item shows n/a for every rate (never 0% beside accuracy n/a); the errors column
counts the judge's endpoint errors too; excluded items list each side in the heading's order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.reports.cells import errors_cell, excluded_text
from agents.reports.data import build_report_data
from agents.reports.markdown import render_markdown
from graph.store import EventStore
from tests.agents.runs.test_endpoint_failures import run_batch
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.policy import AutoPolicy, schema_title
from tests.fake_openai.server import HttpError


def test_excluded_items_follow_the_heading_order_and_errors_name_the_judge_share() -> None:
    assert excluded_text([{"item_id": "i-1", "baseline": "answered", "method": "error"}]) == (
        "; left out, not answered by both: i-1 (error / answered)"  # heading: method - baseline
    )
    assert errors_cell({"n_errors": 1, "n_unjudged_by_errors": 2}) == "3 (2 judge)"
    assert errors_cell({"n_errors": 0}) == "0"


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config")
def test_a_run_with_no_answer_shows_n_a_for_every_rate(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    policy = AutoPolicy()

    def answerer_refused(body: dict[str, Any]) -> Reply:
        if schema_title(body) is None:  # the answering agent's requests (tools or plain chat)
            raise HttpError(400, "the answerer's model is not loaded (scripted)")
        return policy(body)

    with FakeOpenAI(answerer_refused) as fake:
        plan, _ = run_batch(mini_store, mini_retriever, fake, "HYBRID", tmp_path / "c.sqlite")
    data = build_report_data(mini_store.driver, "neo4j", [plan.runs[0].run_id], resamples=50)
    m = data["runs"][0]["metrics"]
    assert (m["n_answered"], m["n_errors"]) == (0, 4)
    assert (m["read_recall"], m["first_search_hit_rate"], m["search_hit_rate"], m["accuracy"]) == (None,) * 4
    row = next(line for line in render_markdown(data).splitlines() if plan.runs[0].run_id in line and "|" in line)
    assert "0.00%" not in row and row.count("n/a") >= 5, row


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config")
def test_the_errors_column_counts_judge_endpoint_errors(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    policy = AutoPolicy()

    def judge_refused(body: dict[str, Any]) -> Reply:
        if schema_title(body) == "AccuracyOut":
            raise HttpError(400, "the request exceeds the available context size")
        return policy(body)

    with FakeOpenAI(judge_refused) as fake:
        plan, _ = run_batch(mini_store, mini_retriever, fake, "RAW_TURNS", tmp_path / "c.sqlite", judges=("accuracy",))
    data = build_report_data(mini_store.driver, "neo4j", [plan.runs[0].run_id], resamples=50)
    m = data["runs"][0]["metrics"]
    assert (m["n_errors"], m["n_unjudged_by_errors"]) == (0, 4)
    row = next(line for line in render_markdown(data).splitlines() if plan.runs[0].run_id in line and "|" in line)
    assert "| 4 (4 judge) |" in row, row
