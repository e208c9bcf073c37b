"""Granularities and session definitions of `eval retrieval` on the real Neo4j: round cards reach evidence
stated by the assistant (turn cards cannot), round cards resolve to both of their turns, whole-session cards
are ranked as units, the session-level figures follow their definitions, LoCoMo's second speaker is memory
evidence, and `--variant` reads a LongMemEval file whose name does not say it."""

from __future__ import annotations

import pytest
from neo4j import Driver
from typer.testing import CliRunner

from agents.memory.raw_turns.declare import RAW_TURNS
from agents.retrieval_eval.metrics import dedupe, lme_metrics, unit_to_session_metrics
from agents.retrieval_eval.pipeline import run_retrieval_eval
from agents.retrieval_eval.report import EvalReport, ItemRow
from graph.store import EventStore
from ingest.errors import InputError
from query.recipes import KEYWORD, SEMANTIC
from query.retriever import Retriever
from tests.conftest import emptied_store
from tests.paths import FIXTURES

pytestmark = pytest.mark.neo4j

SESSIONS = FIXTURES / "retrieval" / "lme_sessions_fixture.json"  # the name does not say S: needs --variant
LOCOMO = FIXTURES / "locomo" / "locomo_mini.json"
SSA = "lme-s:q_ssa"
MULTI = "lme-s:q_multi"


@pytest.fixture(scope="module")
def store(driver: Driver, encoder) -> EventStore:  # type: ignore[no-untyped-def]
    return emptied_store(driver, encoder)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def retriever(store: EventStore):  # type: ignore[no-untyped-def]
    r = Retriever(store.driver, store.encoder)  # type: ignore[arg-type]
    yield r
    r.close()


def _report(store: EventStore, retriever: Retriever, granularity: str) -> EvalReport:
    return run_retrieval_eval(
        store, retriever, "longmemeval", SESSIONS, [KEYWORD, SEMANTIC], [1, 3, 5], granularity=granularity, variant="s"
    )


@pytest.fixture(scope="module")
def turn_report(store: EventStore, retriever: Retriever) -> EvalReport:
    return _report(store, retriever, "turn")


@pytest.fixture(scope="module")
def round_report(store: EventStore, retriever: Retriever, turn_report: EvalReport) -> EvalReport:
    return _report(store, retriever, "round")


def _row(report: EvalReport, profile: str, recipe: str, level: str) -> ItemRow:
    return next(r for r in report.rows if r.item_id == f"{profile}:q" and r.recipe == recipe and r.level == level)


def test_a_file_without_its_variant_in_the_name_needs_variant(store: EventStore, retriever: Retriever) -> None:
    with pytest.raises(InputError, match="variant"):
        run_retrieval_eval(store, retriever, "longmemeval", SESSIONS, [KEYWORD], [1])


def test_assistant_evidence_is_unreachable_at_turn_granularity(turn_report: EvalReport) -> None:
    levels = {r.level for r in turn_report.rows if r.line == "memory"}
    assert levels == {"turn", "session_turn2session", "session_best_turn"}
    for level in levels:
        row = _row(turn_report, SSA, "KEYWORD", level)
        assert row.skipped is not None and "assistant" in row.skipped
    # The evidence turn (the assistant's reply) is never a turn card.
    multi = _row(turn_report, MULTI, "SEMANTIC", "turn")
    assert multi.skipped is None and not any(t.endswith(":1") and "answer_ssa" in t for t in multi.ranked)


def test_assistant_evidence_is_found_at_round_granularity(round_report: EvalReport) -> None:
    row = _row(round_report, SSA, "KEYWORD", "round")
    assert row.skipped is None
    assert row.gold == [f"raw_rounds:{SSA}:answer_ssa_1:0"]
    assert row.ranked[0] == f"raw_rounds:{SSA}:answer_ssa_1:0"  # "saffron risotto" is only in the reply
    assert row.metrics["recall_any@1"] == 1.0 and row.metrics["ndcg@1"] == 1.0
    mapped = _row(round_report, SSA, "KEYWORD", "session_round2session")
    assert mapped.gold == [f"{SSA}:answer_ssa_1"] and mapped.metrics["recall_all@1"] == 1.0


def test_a_round_card_carries_both_turn_ids_which_resolve_in_the_graph(
    store: EventStore, round_report: EvalReport
) -> None:
    with store.driver.session() as session:
        record = session.run(
            "MATCH (m:Memory {id: $id})-[:DERIVED_FROM]->(t:Turn) RETURN m.text AS text, "
            "collect(t.id) AS turns, collect(t.role) AS roles",
            id=f"raw_rounds:{SSA}:answer_ssa_1:0",
        ).single()
    assert record is not None
    assert sorted(record["turns"]) == [f"{SSA}:answer_ssa_1:0", f"{SSA}:answer_ssa_1:1"]
    assert sorted(record["roles"]) == ["assistant", "user"]
    assert record["text"] == "Can you suggest a dinner for tonight?\nTry a Milanese saffron risotto with parmesan."
    assert round_report.memory_build["raw_rounds.cards_added"] == 4 + 5  # every round of both profiles


def test_session_levels_follow_their_definitions(turn_report: EvalReport) -> None:
    turn = _row(turn_report, MULTI, "SEMANTIC", "turn")
    mapped = _row(turn_report, MULTI, "SEMANTIC", "session_turn2session")
    best = _row(turn_report, MULTI, "SEMANTIC", "session_best_turn")
    gold_sessions = [f"{MULTI}:answer_m_1", f"{MULTI}:answer_m_2"]
    assert sorted(turn.gold) == [f"{MULTI}:answer_m_1:2", f"{MULTI}:answer_m_2:0"]
    assert sorted(mapped.gold) == gold_sessions and sorted(best.gold) == gold_sessions
    # Every user turn is ranked by cosine (5 cards); recompute both session figures from the turn ranking.
    assert len(turn.ranked) == 5 and len(mapped.ranked) == 5
    session_of = {t: t.rsplit(":", 1)[0] for t in turn.ranked}
    expected = unit_to_session_metrics(turn.ranked, session_of, set(turn.gold), [1, 3, 5])
    assert mapped.metrics == pytest.approx(expected)
    # The mapped ranking names each unit's session key: a non-evidence turn of a gold session is no hit.
    assert [key.split("#")[0] for key in mapped.ranked] == [session_of[t] for t in turn.ranked]
    assert sum(key in gold_sessions for key in mapped.ranked) == 2
    best_expected = lme_metrics(dedupe(session_of[t] for t in turn.ranked), set(gold_sessions), [1, 3, 5])
    assert best.metrics == pytest.approx(best_expected)
    # The first turn of answer_m_1 is not evidence: ranked first, it is a best-turn hit but no LongMemEval one.
    if turn.ranked[0] == f"{MULTI}:answer_m_1:0":
        assert best.metrics["recall_any@1"] == 1.0 and mapped.metrics["recall_any@1"] == 0.0


def test_whole_sessions_are_ranked_as_units(store: EventStore, retriever: Retriever, round_report: EvalReport) -> None:
    report = _report(store, retriever, "session")
    assert {r.level for r in report.rows if r.line == "memory"} == {"session_whole"}
    row = _row(report, MULTI, "KEYWORD", "session_whole")
    assert sorted(row.gold) == [f"{MULTI}:answer_m_1", f"{MULTI}:answer_m_2"]
    # Keyword ranking: only sessions sharing a query term (beagle, Pixel, learned, tricks) are ranked.
    assert set(row.ranked) == {f"{MULTI}:answer_m_1", f"{MULTI}:sharegpt_m2", f"{MULTI}:answer_m_2"}
    assert row.metrics == pytest.approx(lme_metrics(row.ranked, set(row.gold), [1, 3, 5]))
    assert row.metrics["recall_all@3"] == 1.0
    # Whole-session units hold user turns only, as LongMemEval's: the assistant-only evidence has no gold session.
    ssa = _row(report, SSA, "KEYWORD", "session_whole")
    assert ssa.skipped is not None and "assistant" in ssa.skipped
    assert report.memory_build["raw_sessions.cards_added"] == 7
    assert any("session_whole: whole sessions as units" in n for n in report.notes)


def test_locomo_second_speaker_turns_are_memory_evidence(store: EventStore, retriever: Retriever) -> None:
    report = run_retrieval_eval(store, retriever, "locomo", LOCOMO, [KEYWORD, RAW_TURNS], [1, 3])
    with store.driver.session() as session:
        roles = session.run(
            "MATCH (m:Memory {system: 'raw_turns'})-[:DERIVED_FROM]->(t:Turn) WHERE t.profile_id = 'locomo:conv-1' "
            "RETURN t.role AS role, count(*) AS n"
        ).data()
    assert {r["role"]: r["n"] for r in roles} == {"user": 3, "assistant": 2}  # Melanie's turns have cards
    # "When did Melanie paint a sunrise?": evidence D1:2 and D2:1, both Melanie's (the second speaker).
    row = next(
        r for r in report.rows if r.item_id == "locomo:conv-1:qa:1" and r.recipe == "KEYWORD" and r.level == "turn"
    )
    assert row.skipped is None
    assert sorted(row.gold) == ["locomo:conv-1:D1:2", "locomo:conv-1:D2:1"]
    assert row.metrics["recall_any@3"] == 1.0  # "paint ... sunrise" is in Melanie's D1:2
    note = next(n for n in report.notes if n.startswith("LoCoMo:"))
    assert "have a first-speaker evidence turn" in note


def test_cli_takes_granularity_and_variant_and_prints_plain_progress(store: EventStore) -> None:
    from cli import app

    result = CliRunner().invoke(
        app,
        [
            "eval",
            "retrieval",
            "--dataset",
            "longmemeval",
            "--path",
            str(SESSIONS),
            "--variant",
            "s",
            "--granularity",
            "round",
            "--recipes",
            "KEYWORD",
            "--k",
            "1,3",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "memory line, round level" in result.output
    assert "memory line, session_round2session level" in result.output
    assert "progress: evaluating 2/2 (100%)" in result.output
    bad = CliRunner().invoke(
        app, ["eval", "retrieval", "--dataset", "longmemeval", "--path", str(SESSIONS), "--granularity", "word"]
    )
    assert bad.exit_code != 0 and "--granularity must be one of turn, round, session" in bad.output
