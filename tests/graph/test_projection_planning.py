"""Projection planned outside the transaction (graph/projection.py) and the replay pipeline built on it: pages
are read whole across record chunks, grouped statements keep each row's own
references, and list parameters pack as lists while formatting as their length."""

from __future__ import annotations

import pytest

from bench.bench_event_store import conversation_log
from graph.events import (
    FactRecorded,
    ItemCreated,
    NewEvent,
    ProfileCreated,
    QaAnswered,
    QaAnswerJudged,
    QaRunStarted,
)
from graph.fingerprint import compute_fingerprint
from graph.projection import LoggedEvent, ProjectionError, group_consecutive
from graph.quiet_params import QuietList
from graph.replay import drop_projection, replay
from graph.store import EventStore
from tests.graph_counts import count

pytestmark = pytest.mark.neo4j


def test_replay_pages_hold_every_event_once_in_seq_order_across_record_chunks(store: EventStore) -> None:
    store.append(conversation_log(1300))
    full = {e.seq: (e.type, e.payload) for e in store.read()}
    for page_size in (499, 700, 5000):
        pages = list(store.read_for_replay(page_size=page_size))
        assert [len(p) for p in pages[:-1]] == [page_size] * (len(pages) - 1)
        read = [(e.seq, e.type, e.payload) for page in pages for e in page]
        assert [seq for seq, _, _ in read] == list(range(1, 1301))
        assert {seq: (kind, payload) for seq, kind, payload in read} == full


def test_facts_of_interleaved_profiles_each_join_their_own_profile(store: EventStore) -> None:
    events = [NewEvent(ProfileCreated(profile_id=p, dataset="unit"), "test") for p in ("pa", "pb")]
    events += [
        NewEvent(FactRecorded(fact_id=f"f{i}", profile_id="pa" if i % 2 else "pb", text=f"fact {i}"), "test")
        for i in range(6)
    ]
    store.append(events)
    rows = store.driver.execute_query("MATCH (p:Profile)-[:HAS_FACT]->(f:Fact) RETURN p.id AS p, f.id AS f")[0]
    assert {(r["p"], r["f"]) for r in rows} == {("pa" if i % 2 else "pb", f"f{i}") for i in range(6)}


def test_a_fact_of_an_unknown_profile_fails_its_whole_batch(store: EventStore) -> None:
    store.append([NewEvent(ProfileCreated(profile_id="pa", dataset="unit"), "test")])
    bad = [
        NewEvent(FactRecorded(fact_id="f-ok", profile_id="pa", text="x"), "test"),
        NewEvent(FactRecorded(fact_id="f-lost", profile_id="no-such-profile", text="y"), "test"),
    ]
    with pytest.raises(ProjectionError, match="f-lost"):
        store.append(bad)
    assert count(store.driver, "MATCH (f:Fact) RETURN count(f)") == 0


def test_a_quiet_list_packs_as_its_items_and_formats_as_its_length(store: EventStore) -> None:
    rows = QuietList([{"n": i} for i in range(1000)])
    assert repr({"rows": rows}) == "{'rows': <1000 items>}"
    record = store.driver.execute_query("UNWIND $rows AS row RETURN count(row) AS c, sum(row.n) AS s", rows=rows)[0][0]
    assert (record["c"], record["s"]) == (1000, sum(range(1000)))


def _qa_answer_log() -> list[NewEvent]:
    """A profile, an item, a QA run and one answer to it (what QaAnswerJudged verdicts attach to)."""
    return [
        NewEvent(ProfileCreated(profile_id="pq", dataset="unit"), "test"),
        NewEvent(ItemCreated(item_id="iq", profile_id="pq", dataset="unit", question="q?"), "test"),
        NewEvent(QaRunStarted(qa_run_id="qr", dataset="unit", source="x", item_ids=["iq"]), "test"),
        NewEvent(
            QaAnswered(answer_id="qr:iq", qa_run_id="qr", item_id="iq", answer="a", model="m", prompt_sha256="h"),
            "test",
        ),
    ]


def _verdicts(answer_id: str, correct: list[bool]) -> list[NewEvent]:
    return [
        NewEvent(
            QaAnswerJudged(
                judgment_id=f"{answer_id}:judge:{run}", answer_id=answer_id, qa_run_id="qr", item_id="iq",
                rule="binary", correct=ok, judge_model="m", prompt_name="p", prompt_sha256="h", judge_run=run,
            ),
            "test",
        )
        for run, ok in enumerate(correct, start=1)
    ]  # fmt: skip


@pytest.mark.parametrize("correct", [[True, False, True], [True, True, False], [False, True, False, True]])
def test_verdicts_on_one_answer_in_one_statement_project_as_one_statement_each(
    store: EventStore, correct: list[bool]
) -> None:
    """The N judge runs on one answer share a statement: the answer mirrors the latest verdict, exactly as when
    the verdicts are appended one transaction each, and a replay in pages of any size gives the same graph."""
    verdicts = _verdicts("qr:iq", correct)
    assert [kind for kind, _ in group_consecutive([_logged(i, v) for i, v in enumerate(verdicts, 1)])] == [
        "QaAnswerJudged"
    ]
    store.append(_qa_answer_log())
    for verdict in verdicts:  # one transaction (one statement) per verdict
        store.append([verdict])
    one_by_one = compute_fingerprint(store.driver)
    answer = store.driver.execute_query("MATCH (a:QaAnswer) RETURN a.correct AS c, a.judged_seq AS s")[0][0]
    assert (answer["c"], answer["s"]) == (correct[-1], store.head().seq)

    store.driver.execute_query("MATCH (n) DETACH DELETE n")
    store.ensure_schema()
    store.append(_qa_answer_log() + verdicts)  # one transaction, the verdicts in one statement
    assert compute_fingerprint(store.driver) == one_by_one
    for page_size in (1, 2, 5000):
        drop_projection(store)
        replay(store, page_size=page_size)
        assert compute_fingerprint(store.driver) == one_by_one


def _logged(seq: int, new: NewEvent) -> LoggedEvent:
    return LoggedEvent(seq, new.event.TYPE, new.event.payload())
