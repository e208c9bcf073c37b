"""Reruns keep their promises (issue 30, item 3), on the real Neo4j with the `mini` bundle and the fake OpenAI
server: a judge request the endpoint refused is not sent again by a plain rerun (only with retry_failed); a
state summary refused for one profile is not asked again by a plain rerun; a rerun whose attempts are all done
builds no prerequisite (no state summary, no memory build request)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graph.store import EventStore
from tests.agents.runs.test_endpoint_failures import attempts, run_batch
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.policy import AutoPolicy, schema_title
from tests.fake_openai.server import HttpError

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]


def titles(bodies: list[dict[str, Any]]) -> list[str | None]:
    return [schema_title(b) for b in bodies]


def test_a_refused_judge_request_is_not_sent_again_without_retry_failed(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    policy = AutoPolicy()
    refusing = {"on": True}

    def judge_refused(body: dict[str, Any]) -> Reply:
        if refusing["on"] and schema_title(body) == "AccuracyOut":
            raise HttpError(400, "the request exceeds the available context size")
        return policy(body)

    cache = tmp_path / "c.sqlite"
    with FakeOpenAI(judge_refused) as fake:
        _, first = run_batch(mini_store, mini_retriever, fake, "RAW_TURNS", cache, judges=("accuracy",))
        assert first.errors_by_role == {"judge": 4} and not first.rerun_helps
        sent = len(fake.requests)
        _, plain = run_batch(mini_store, mini_retriever, fake, "RAW_TURNS", cache, judges=("accuracy",))
        assert fake.requests[sent:] == []  # nothing re-sent: each would be refused again
        assert plain.errors_by_role == {}
        assert any("4 attempt(s) the endpoint refused earlier were not tried again" in n for n in plain.notes)
        refusing["on"] = False
        sent = len(fake.requests)
        _, retried = run_batch(
            mini_store, mini_retriever, fake, "RAW_TURNS", cache, judges=("accuracy",), retry_failed=True
        )
        assert titles(fake.requests[sent:]).count("AccuracyOut") == 4
    assert {r.status for r in retried.runs} == {"finished"} and not retried.failed


def test_a_refused_state_summary_is_not_asked_again_by_a_plain_rerun(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    policy = AutoPolicy()

    def ravi_states_refused(body: dict[str, Any]) -> Reply:
        if schema_title(body) == "StateSummaryOut" and "mini-s-3-t0" in json.dumps(body.get("messages", [])):
            raise HttpError(400, "the request exceeds the available context size")
        return policy(body)

    cache = tmp_path / "c.sqlite"
    with FakeOpenAI(ravi_states_refused) as fake:
        plan, first = run_batch(mini_store, mini_retriever, fake, "MEMKB_RAW_TURNS", cache)
        assert first.errors_by_role == {"state": 1}
        assert attempts(mini_store, plan.runs[0].run_id)["i-mini-03"]["status"] == "error"
        sent = len(fake.requests)
        _, plain = run_batch(mini_store, mini_retriever, fake, "MEMKB_RAW_TURNS", cache)
        assert fake.requests[sent:] == []  # neither Ravi's state summary nor the attempt that needs it
    assert plain.errors_by_role == {}
    assert any("state summaries: 2 of 2 profile(s) not built this time" in n for n in plain.notes), plain.notes


def test_a_rerun_with_every_attempt_done_builds_no_prerequisite(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    cache = tmp_path / "c.sqlite"
    with FakeOpenAI(AutoPolicy()) as fake:
        _, first = run_batch(mini_store, mini_retriever, fake, "MEMKB_RAW_TURNS", cache)
        assert {r.status for r in first.runs} == {"finished"}
        _, again = run_batch(mini_store, mini_retriever, fake, "MEMKB_RAW_TURNS", cache)
    assert again.usage["total"]["calls"] == 0  # not even a cached state summary was asked for
    assert any("memory (raw_turns): 2 of 2 profile(s) not built" in n for n in again.notes), again.notes
