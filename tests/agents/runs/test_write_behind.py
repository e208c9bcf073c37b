"""A run's attempt events written behind the attempts (agents/runs/event_writer.py through
`AttemptWorker.writing()`): the same events in the same order as appending in each attempt, one transaction per
attempt's answer, verdicts after their answer, a failed write stopping the batch (at the next hand-over or at
the end) with nothing lost or doubled by the rerun."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

import agents.runs.attempt_worker as attempt_worker
from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.prompts.registry import PromptSet
from agents.runs.plan import RunOptions, plan_batch
from agents.runs.runner import BatchReport, execute_batch
from graph.events import NewEvent
from graph.fingerprint import Fingerprint, compute_fingerprint
from graph.hashing import canonical_json
from graph.integrity import verify_chain
from graph.replay import drop_projection, replay
from graph.store import AppendGuard, AppendResult, EventStore
from query.retriever import Retriever
from tests.conftest import MINI_BUNDLE, emptied_store
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

ITEMS = ["i-mini-01", "i-mini-02", "i-mini-03", "i-mini-04"]
# payload fields holding wall-clock timings, which differ from one run to the next, and the log head's hash at a
# run's start (the chain hashes each event's recorded_at, so each ingest of the same bundle has its own)
MASKED = {"seconds", "tool_seconds", "limiter_wait_s", "dataset_fingerprint"}


class FailingStore(EventStore):
    """Appends like EventStore, except that the first append holding an event of `event_type` of the attempt
    whose id ends with `attempt` raises (a Neo4j that went away for a moment), writing nothing."""

    def __init__(self, store: EventStore, event_type: str, attempt: str) -> None:
        super().__init__(store.driver, store.database, store.encoder)
        self.event_type = event_type
        self.attempt = attempt
        self.failed = False

    def append(self, events: Sequence[NewEvent], guard: AppendGuard | None = None) -> AppendResult:
        hit = any(
            self.event_type == e.event.TYPE and str(getattr(e.event, "attempt_id", "")).endswith(self.attempt)
            for e in events
        )
        if hit and not self.failed:
            self.failed = True
            raise RuntimeError(f"neo4j went away while writing {self.event_type} of {self.attempt}")
        return super().append(events, guard)


def fresh_mini(driver: Driver, encoder: Any) -> EventStore:
    from ingest.pipeline import load_input, write_events

    store = emptied_store(driver, encoder)
    write_events(store, load_input(MINI_BUNDLE))
    return store


def run_batch(
    store: EventStore, fake: FakeOpenAI, cache: Path, *, judges: tuple[str, ...], concurrency: int
) -> BatchReport:
    base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 30.0}
    roles = LLMRoles(
        overrides={role: dict(base) for role in ("answerer", "judge", "state")}, cache_path=cache, cache_mode="off"
    )
    prompts = PromptSet()
    assert store.encoder is not None
    plan = plan_batch(
        store,
        parse_methods("RAW_TURNS,HYBRID"),
        RunOptions(dataset="mini", judges=judges),
        roles,
        prompts,
        encoder_id=store.encoder.encoder_id,
    )
    retriever = Retriever(store.driver, store.encoder)
    try:
        return execute_batch(store, retriever, plan, roles, prompts, concurrency=concurrency)
    finally:
        retriever.close()
        roles.close()


def masked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "<masked>" if k in MASKED else masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v) for v in value]
    return value


def recorded(store: EventStore) -> dict[str, Any]:
    """The log (seq, type, payload with timings masked), whether its chain verifies, the projection's
    fingerprint as written and after a replay."""
    events = list(store.read())
    live = compute_fingerprint(store.driver)
    drop_projection(store)
    replay(store)
    return {
        "log": [canonical_json([e.seq, e.type, masked(e.payload)]) for e in events],
        "chain_verifies": verify_chain(events, expected_head=store.head().hash).ok,
        "live": live,
        "replayed": compute_fingerprint(store.driver),
    }


def counts(fingerprint: Fingerprint) -> tuple[Any, ...]:
    return fingerprint.nodes, fingerprint.relationships, fingerprint.labels, fingerprint.relationship_types


def rows(store: EventStore, query: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [dict(r) for r in session.run(query, **params)]


def test_writing_behind_records_the_same_log_and_graph_as_writing_in_the_attempt(
    driver: Driver, encoder: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcomes = {}
    with FakeOpenAI(AutoPolicy()) as fake:  # one endpoint: its address is in the runs' configuration
        for behind in (False, True):
            monkeypatch.setattr(attempt_worker, "WRITE_BEHIND", behind)
            store = fresh_mini(driver, encoder)
            report = run_batch(
                store, fake, tmp_path / f"c{behind}.sqlite", judges=("accuracy", "error_analysis"), concurrency=1
            )
            assert [r.status for r in report.runs] == ["finished", "finished"]
            outcomes[behind] = recorded(store)
    reference, behind_log = outcomes[False], outcomes[True]
    assert reference["chain_verifies"] and behind_log["chain_verifies"]
    assert any('"AnswerJudged"' in line for line in reference["log"])
    assert behind_log["log"] == reference["log"]  # the same events, in the same order
    # each graph is the projection of its log; the two have the same nodes and relationships (their digests
    # differ: the projection keeps the timings masked above)
    assert behind_log["live"] == behind_log["replayed"] and reference["live"] == reference["replayed"]
    assert counts(behind_log["live"]) == counts(reference["live"])


def test_concurrent_attempts_keep_each_answer_in_one_transaction_and_verdicts_after_it(
    driver: Driver, encoder: Any, tmp_path: Path
) -> None:
    store = fresh_mini(driver, encoder)
    with FakeOpenAI(AutoPolicy()) as fake:
        report = run_batch(store, fake, tmp_path / "c.sqlite", judges=("accuracy",), concurrency=3)
    assert [r.status for r in report.runs] == ["finished", "finished"]
    events = list(store.read())
    assert verify_chain(events, expected_head=store.head().hash).ok
    per_attempt: dict[str, list[tuple[int, str, str]]] = {}
    for e in events:
        attempt = e.payload.get("attempt_id")
        if attempt:
            per_attempt.setdefault(attempt, []).append((e.seq, e.type, e.recorded_at))
    assert len(per_attempt) == 2 * len(ITEMS)
    for attempt, logged in per_attempt.items():
        types = [t for _, t, _ in logged]
        answer = [(seq, at) for seq, t, at in logged if t != "AnswerJudged"]
        assert types[0] == "AttemptStarted" and types[-1] == "AnswerJudged", (attempt, types)
        assert types.index("AttemptFinished") == len(types) - 2, (attempt, types)
        # one transaction: consecutive seq numbers and one recorded_at
        assert [seq for seq, _ in answer] == list(range(answer[0][0], answer[0][0] + len(answer))), attempt
        assert len({at for _, at in answer}) == 1, attempt


@pytest.mark.parametrize(
    ("event_type", "attempt"),
    [("AttemptFinished", "-raw_turns:i-mini-02"), ("AnswerJudged", "-hybrid:i-mini-04")],
    ids=["next_hand_over", "at_the_end"],
)
def test_a_failed_write_stops_the_batch_and_the_rerun_completes_it_without_doubles(
    driver: Driver, encoder: Any, tmp_path: Path, event_type: str, attempt: str
) -> None:
    """The write of one attempt's events fails: a later hand-over raises the error (or, for the batch's last
    events, the end of the batch does), the batch stops with it, and what was held back is still appended; the
    rerun answers only what is missing, every attempt once."""
    store = fresh_mini(driver, encoder)
    with FakeOpenAI(AutoPolicy()) as fake:
        with pytest.raises(RuntimeError, match=f"went away while writing {event_type} of {attempt}"):
            run_batch(
                FailingStore(store, event_type, attempt), fake, tmp_path / "c.sqlite", judges=("accuracy",),
                concurrency=1,
            )  # fmt: skip
        answered = {r["a"] for r in rows(store, "MATCH (a:Attempt {status: 'answered'}) RETURN a.id AS a")}
        assert any(a.endswith(attempt) for a in answered)  # held back, then appended on the way out
        judged = rows(store, "MATCH (e:Event {type: 'AnswerJudged'}) RETURN e.payload AS p")
        if event_type == "AnswerJudged":  # the batch's last events, appended by the end of the batch
            assert any(json.loads(j["p"])["attempt_id"].endswith(attempt) for j in judged)
        half = rows(
            store,
            "MATCH (a:Attempt) WHERE a.status IS NULL OR (a.status = 'answered' AND a.answer IS NULL) "
            "RETURN a.id AS id",
        )
        assert half == []
        report = run_batch(store, fake, tmp_path / "c.sqlite", judges=("accuracy",), concurrency=1)
    assert [r.status for r in report.runs] == ["finished", "finished"]
    # the rerun answered exactly the attempts the failed pass had not written
    answered_again = sum(1 for measured in report.timings.values() for m in measured if "answer_s" in m)
    assert answered_again == 2 * len(ITEMS) - len(answered)
    given = rows(store, "MATCH (e:Event {type: 'AnswerGiven'}) RETURN e.payload AS p")
    per_attempt: dict[str, int] = {}
    for g in given:
        attempt = json.loads(g["p"])["attempt_id"]
        per_attempt[attempt] = per_attempt.get(attempt, 0) + 1
    assert sorted(per_attempt.values()) == [1] * (2 * len(ITEMS))  # every attempt answered once
    events = list(store.read())
    assert verify_chain(events, expected_head=store.head().hash).ok
