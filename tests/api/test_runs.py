"""run(id) and attempt(run, item): the evidence trace of an evaluation run, read back exactly as its events
wrote it (rounds, tool calls with arguments and what they returned, answer, verdicts, scores, prompt hashes)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from graph import events as e
from tests.api_support import api_client, data_of, gql

pytestmark = pytest.mark.neo4j

RUN = "run-test-memkb"
ITEM = "i-mini-01"
ATTEMPT = f"{RUN}:{ITEM}"
SHA = "a" * 64


@pytest.fixture(scope="module")
def run_graph(mini_store: Any) -> Any:
    mini_store.append(
        [
            e.NewEvent(
                e.MemoryWritten(
                    system="raw_turns",
                    memory_id="m-run-1",
                    profile_id="mini-p-sam",
                    op="ADD",
                    text="I got my first tattoo on Saturday, 1 March.",
                    source_turn_ids=["mini-s-1-t0"],
                ),
                "test",
            ),
            e.NewEvent(
                e.RunStarted(
                    run_id=RUN,
                    method="MEMKB",
                    dataset="mini",
                    batch_id="batch-1",
                    item_ids=[ITEM],
                    config={"k": 5},
                    models={"answerer": "fake-model"},
                    prompt_hashes={"answer": SHA},
                    seeds={"bootstrap": 20261014},
                    versions={"colabench": "0.1.0"},
                    dataset_fingerprint="f" * 64,
                    dataset_head_seq=1,
                ),
                "test",
            ),
            e.NewEvent(e.AttemptStarted(attempt_id=ATTEMPT, run_id=RUN, item_id=ITEM), "test"),
            e.NewEvent(
                e.ToolCalled(
                    tool_call_id=f"{ATTEMPT}:r1:0",
                    attempt_id=ATTEMPT,
                    round=1,
                    ordinal=0,
                    tool="memkb_search",
                    arguments={"query": "blood donation after tattoo"},
                    ok=True,
                    recipe="MEMKB",
                    returned=[
                        e.ReturnedRef(kind="document", id="mini-blood-donation", rank=1, start_line=4, end_line=4),
                        e.ReturnedRef(kind="memory", id="m-run-1", rank=1),
                    ],
                    response="1. mini-blood-donation lines 4-4 ...",
                ),
                "test",
            ),
            e.NewEvent(
                e.ToolCalled(
                    tool_call_id=f"{ATTEMPT}:r2:0",
                    attempt_id=ATTEMPT,
                    round=2,
                    ordinal=0,
                    tool="read",
                    arguments={"doc_id": "mini-blood-donation", "start_line": 1, "n_lines": 5},
                    ok=True,
                    returned=[
                        e.ReturnedRef(kind="document", id="mini-blood-donation", rank=1, start_line=1, end_line=5)
                    ],
                ),
                "test",
            ),
            e.NewEvent(
                e.AnswerGiven(
                    attempt_id=ATTEMPT,
                    answer="Not yet: wait 4 months after the tattoo.",
                    rounds=2,
                    turns=3,
                    finish="answered",
                    tokens_in=1200,
                    tokens_out=80,
                    model="fake-model",
                    prompt_sha256=SHA,
                ),
                "test",
            ),
            e.NewEvent(
                e.AnswerJudged(
                    judgment_id=f"{ATTEMPT}:accuracy",
                    attempt_id=ATTEMPT,
                    kind="accuracy",
                    verdict="pass",
                    rationale="Applies the 4-month rule.",
                    judge_model="fake-judge",
                    prompt_name="accuracy",
                    prompt_version="1",
                    prompt_sha256="b" * 64,
                ),
                "test",
            ),
            e.NewEvent(
                e.AnswerJudged(
                    judgment_id=f"{ATTEMPT}:quality:evidence_grounding",
                    attempt_id=ATTEMPT,
                    kind="quality:evidence_grounding",
                    score=4.0,
                    judge_model="fake-judge",
                    prompt_name="quality",
                    prompt_version="1",
                    prompt_sha256="c" * 64,
                ),
                "test",
            ),
            e.NewEvent(
                e.AttemptFinished(
                    attempt_id=ATTEMPT,
                    status="answered",
                    rounds=2,
                    turns=3,
                    tokens_in=1200,
                    tokens_out=80,
                    seconds=1.5,
                ),
                "test",
            ),
            e.NewEvent(e.RunFinished(run_id=RUN, status="finished", counts={"attempts": 1}), "test"),
        ]
    )
    return mini_store


@pytest.fixture(scope="module")
def client(run_graph: Any, neo4j_settings: Any, driver: Driver, encoder: Any) -> Iterator[TestClient]:
    with api_client(neo4j_settings, driver, encoder) as c:
        yield c


def test_run_query_returns_the_run_record_and_its_attempts(client: TestClient) -> None:
    query = """query($id: ID!) { run(id: $id) { id method dataset batchId status config models promptHashes seeds
        versions datasetFingerprint itemIds attemptCount counts attempts { id itemId } } }"""
    run = data_of(gql(client, query, {"id": RUN}))["run"]
    assert run == {
        "id": RUN,
        "method": "MEMKB",
        "dataset": "mini",
        "batchId": "batch-1",
        "status": "finished",
        "config": {"k": 5},
        "models": {"answerer": "fake-model"},
        "promptHashes": {"answer": SHA},
        "seeds": {"bootstrap": 20261014},
        "versions": {"colabench": "0.1.0"},
        "datasetFingerprint": "f" * 64,
        "itemIds": [ITEM],
        "attemptCount": 1,
        "counts": {"attempts": 1},
        "attempts": [{"id": ATTEMPT, "itemId": ITEM}],
    }
    runs = data_of(gql(client, '{ runs(batchId: "batch-1") { id } }'))["runs"]
    assert runs == [{"id": RUN}]


def test_attempt_query_returns_the_evidence_trace(client: TestClient) -> None:
    query = """query($run: ID!, $item: ID!) { attempt(run: $run, item: $item) {
        id status answer rounds turns tokensIn tokensOut seconds finish verdict answerPromptSha256
        item { id } run { id }
        scores { dimension score }
        judgments { kind verdict score promptName promptVersion promptSha256 judgeModel valid }
        toolCalls { round ordinal tool arguments ok recipe response
          returned { label id rank startLine endLine lines { lines } document { id }
                     memory { id sourceTurns { id } } } }
    } }"""
    attempt = data_of(gql(client, query, {"run": RUN, "item": ITEM}))["attempt"]
    assert attempt["id"] == ATTEMPT and attempt["status"] == "answered" and attempt["verdict"] == "pass"
    assert (attempt["rounds"], attempt["turns"], attempt["tokensIn"], attempt["tokensOut"]) == (2, 3, 1200, 80)
    assert attempt["answer"].startswith("Not yet") and attempt["answerPromptSha256"] == SHA
    assert attempt["item"] == {"id": ITEM} and attempt["run"] == {"id": RUN}
    assert attempt["scores"] == [{"dimension": "evidence_grounding", "score": 4.0}]
    assert [(j["kind"], j["promptSha256"]) for j in attempt["judgments"]] == [
        ("accuracy", "b" * 64),
        ("quality:evidence_grounding", "c" * 64),
    ]
    first, second = attempt["toolCalls"]
    assert (first["round"], first["tool"], first["recipe"]) == (1, "memkb_search", "MEMKB")
    assert first["arguments"] == {"query": "blood donation after tattoo"}
    assert first["returned"][0]["label"] == "Document" and first["returned"][0]["lines"]["lines"] == [
        "Wait 4 months after a new tattoo or piercing before donating."
    ]
    assert first["returned"][1] == {
        "label": "Memory",
        "id": "m-run-1",
        "rank": 1,
        "startLine": None,
        "endLine": None,
        "lines": None,
        "document": None,
        "memory": {"id": "m-run-1", "sourceTurns": [{"id": "mini-s-1-t0"}]},
    }
    assert (second["round"], second["tool"]) == (2, "read")
    assert len(second["returned"][0]["lines"]["lines"]) == 5


def test_item_lists_its_attempts_and_unknown_attempts_are_null(client: TestClient) -> None:
    data = data_of(gql(client, f'{{ item(id: "{ITEM}") {{ attempts {{ id verdict }} }} }}'))
    assert data["item"]["attempts"] == [{"id": ATTEMPT, "verdict": "pass"}]
    assert data_of(gql(client, f'{{ attempt(run: "{RUN}", item: "i-mini-02") {{ id }} }}'))["attempt"] is None


def test_the_browser_neighborhood_of_an_attempt_shows_its_tool_calls(client: TestClient) -> None:
    query = f'{{ neighborhood(id: "{ATTEMPT}") {{ nodes {{ id label }} edges {{ type }} }} }}'
    view = data_of(gql(client, query))["neighborhood"]
    labels = sorted(n["label"] for n in view["nodes"])
    assert labels.count("ToolCall") == 2 and labels.count("Judgment") == 2 and "Run" in labels and "Item" in labels
