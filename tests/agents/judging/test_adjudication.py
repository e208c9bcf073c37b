"""Human adjudication on the real Neo4j with the `mini` bundle, answered and judged through the fake OpenAI
server (a scripted judge leaves three verdicts needs_adjudication): pending cases carry the item, answer,
rationale and trace; a ruling is an AnswerAdjudicated event projected as the Adjudication contract; it moves the
adjudicated accuracy and never the raw one; it survives `graph rebuild`; the CLI and the GraphQL API record
rulings, refuse unknown or not-pending attempts, and hide the reason without the token."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agents.adjudication.cases import load_cases
from agents.adjudication.errors import NotPendingError, UnknownAttemptError, UnknownJudgmentError
from agents.adjudication.models import AdjudicationRequest
from agents.adjudication.record import record_adjudication
from agents.metrics.attempts import RunMetrics, load_attempt_metrics, load_run_record, summarise_run
from graph.store import EventStore
from tests.api_support import TOKEN, api_client, cypher, data_of, error_codes, gql
from tests.fake_openai.adjudication_script import AdjudicationJudge
from tests.report_support import run_mini_batch

pytestmark = pytest.mark.neo4j

PENDING = {"i-mini-01": "Can I give blood", "i-mini-02": "allergy skin prick test", "i-mini-04": "flu jab"}
FAILED = "strength class"  # i-mini-03: a plain fail (not pending)
WHEN = "2026-01-05T10:00:00+00:00"


def run_judged_batch(store: EventStore, data_root: Path) -> str:
    """HYBRID on `mini` against the fake endpoint with the scripted judge; returns the run id."""
    judge = AdjudicationJudge(pending_needles=tuple(PENDING.values()), fail_needles=(FAILED,))
    plan = run_mini_batch(store, judge, data_root / "llm-cache.sqlite")
    assert sorted(set(judge.left_pending)) == sorted(PENDING.values())
    return plan.runs[0].run_id


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An empty config and a data folder of this module's own (no user LLM settings reach the run)."""
    root = tmp_path_factory.mktemp("adjudication")
    (root / "empty.toml").write_text("")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLABENCH_CONFIG", str(root / "empty.toml"))
        patch.setenv("COLABENCH_DATA_DIR", str(root / "data"))
        patch.delenv("COLABENCH_LLM_CACHE_NAMESPACE", raising=False)
        yield root


@pytest.fixture(scope="module")
def run_id(mini_store: EventStore, env: Path) -> str:
    return run_judged_batch(mini_store, env)


def metrics(store: EventStore, run_id: str) -> RunMetrics:
    record = load_run_record(store.driver, store.database, run_id)
    return summarise_run(record, load_attempt_metrics(store.driver, store.database, record))


def adjudication_rows(store: EventStore, attempt_id: str) -> list[dict[str, Any]]:
    """The contract other readers rely on, read with plain Cypher."""
    return cypher(
        store.driver,
        "MATCH (a:Attempt {id: $id})-[r:ADJUDICATED_BY]->(d:Adjudication)<-[:RESOLVED_BY]-(j:Judgment) "
        "RETURN r.seq AS rel_seq, d {.*} AS node, j.id AS judgment_id ORDER BY d.seq",
        id=attempt_id,
    )


def test_pending_cases_carry_question_requirements_answer_rationale_and_trace(
    mini_store: EventStore, run_id: str
) -> None:
    cases = {c.item_id: c for c in load_cases(mini_store.driver, mini_store.database, [run_id], include_resolved=True)}
    assert set(cases) == {"i-mini-01", "i-mini-02", "i-mini-03", "i-mini-04"}
    assert cases["i-mini-03"].judge_verdict == "fail" and not cases["i-mini-03"].pending
    blood = cases["i-mini-01"]
    assert blood.judge_verdict == "needs_adjudication"
    assert "Can I give blood" in blood.question
    assert blood.requirements and blood.requirements[0].text and blood.requirements[0].statements
    assert blood.answer and blood.answer.startswith("Answer to:")
    assert blood.judge_rationale and "cannot tell" in blood.judge_rationale
    assert [c.tool for c in blood.calls][:1] == ["kb_search"] and blood.calls[0].returned


def test_an_adjudication_moves_adjudicated_accuracy_not_raw_and_survives_graph_rebuild(
    mini_store: EventStore, run_id: str
) -> None:
    from cli import app

    attempt = f"{run_id}:i-mini-01"
    before = metrics(mini_store, run_id)
    assert before.accuracy == before.accuracy_adjudicated  # nobody has ruled on this run's attempts yet
    event = record_adjudication(
        mini_store,
        AdjudicationRequest(
            attempt_id=attempt,
            verdict="pass",
            reason="the deferral period is stated",
            adjudicator="ana",
            adjudicated_at=WHEN,
        ),
    )
    after = metrics(mini_store, run_id)
    assert after.accuracy == before.accuracy  # raw accuracy ignores rulings
    assert after.n_pass == before.n_pass
    assert after.accuracy_adjudicated == pytest.approx((before.accuracy_adjudicated or 0) + 1 / after.n_items)
    assert after.n_pending == before.n_pending - 1 and after.n_adjudicated == before.n_adjudicated + 1
    rows = adjudication_rows(mini_store, attempt)
    assert len(rows) == 1
    node = rows[0]["node"]
    assert node["id"] == event.adjudication_id and rows[0]["judgment_id"] == event.judgment_id == node["judgment_id"]
    assert (node["verdict"], node["adjudicator"], node["adjudicated_at"]) == ("pass", "ana", WHEN)
    assert node["reason"] == "the deferral period is stated" and node["seq"] == rows[0]["rel_seq"]

    done = CliRunner().invoke(app, ["graph", "rebuild", "--check", "--page-size", "7"])
    assert done.exit_code == 0, done.output
    assert adjudication_rows(mini_store, attempt) == rows
    assert metrics(mini_store, run_id) == after

    # Overruling the ruling: the latest adjudication of the attempt wins, and raw accuracy still does not move.
    record_adjudication(
        mini_store,
        AdjudicationRequest(
            attempt_id=attempt,
            verdict="fail",
            reason="on reflection the wait is wrong",
            adjudicator="bo",
            adjudicated_at="2026-01-06T09:00:00Z",
            overrule=True,
        ),
    )
    overruled = metrics(mini_store, run_id)
    assert overruled.accuracy == before.accuracy and overruled.accuracy_adjudicated == before.accuracy_adjudicated
    assert [r["node"]["adjudicator"] for r in adjudication_rows(mini_store, attempt)] == ["ana", "bo"]


def test_recording_refuses_unknown_attempts_not_pending_verdicts_and_foreign_judgments(
    mini_store: EventStore, run_id: str
) -> None:
    def ruling(attempt: str, **extra: Any) -> AdjudicationRequest:
        return AdjudicationRequest(attempt_id=attempt, verdict="pass", reason="r", adjudicator="ana", **extra)

    with pytest.raises(UnknownAttemptError, match="no attempt 'nope:i-mini-01'"):
        record_adjudication(mini_store, ruling("nope:i-mini-01"))
    with pytest.raises(NotPendingError, match=r"the judge's verdict is fail.*--overrule"):
        record_adjudication(mini_store, ruling(f"{run_id}:i-mini-03"))
    with pytest.raises(UnknownJudgmentError, match="not an accuracy judgment"):
        record_adjudication(mini_store, ruling(f"{run_id}:i-mini-02", judgment_id=f"{run_id}:i-mini-01:accuracy:x"))
    with pytest.raises(ValueError, match="must be in UTC"):
        record_adjudication(mini_store, ruling(f"{run_id}:i-mini-02", adjudicated_at="2026-01-05T10:00:00+02:00"))


def test_cli_lists_pending_records_a_ruling_and_explains_refusals(mini_store: EventStore, run_id: str) -> None:
    from cli import app

    runner = CliRunner()
    listed = runner.invoke(app, ["adjudicate", run_id, "--list"])
    assert listed.exit_code == 0, listed.output
    assert f"{run_id}:i-mini-02" in listed.output and f"{run_id}:i-mini-03" not in listed.output
    unknown = runner.invoke(
        app, ["adjudicate", "--attempt", "x:y", "--verdict", "pass", "--reason", "r", "--by", "ana"]
    )
    assert unknown.exit_code == 1 and "no attempt 'x:y'" in unknown.output
    not_pending = runner.invoke(
        app, ["adjudicate", "--attempt", f"{run_id}:i-mini-03", "--verdict", "pass", "--reason", "r", "--by", "ana"]
    )
    assert not_pending.exit_code == 1 and "is not pending" in not_pending.output
    bad_verdict = runner.invoke(
        app, ["adjudicate", "--attempt", f"{run_id}:i-mini-02", "--verdict", "maybe", "--reason", "r", "--by", "a"]
    )
    assert bad_verdict.exit_code == 2 and "--verdict must be pass or fail" in bad_verdict.output
    missing = runner.invoke(app, ["adjudicate", "--attempt", f"{run_id}:i-mini-02", "--verdict", "pass"])
    assert missing.exit_code == 2 and "--reason, --by" in missing.output  # bad input

    # Interactively, with no run id (the latest batch): skip the first pending case, fail the next one.
    pending = [c.attempt_id for c in load_cases(mini_store.driver, mini_store.database, [run_id])]
    assert f"{run_id}:i-mini-02" in pending
    answers = []
    for attempt in pending:
        answers += ["fail", "the advice omits the antihistamine pause"] if attempt.endswith("i-mini-02") else ["skip"]
    session = runner.invoke(app, ["adjudicate", "--by", "cli-person"], input="\n".join(answers) + "\n")
    assert session.exit_code == 0, session.output
    assert "judge's rationale:" in session.output and "evidence trace" in session.output
    assert "1 ruling(s) recorded" in session.output
    rows = adjudication_rows(mini_store, f"{run_id}:i-mini-02")
    assert [(r["node"]["verdict"], r["node"]["adjudicator"]) for r in rows] == [("fail", "cli-person")]


def test_graphql_lists_and_records_only_with_the_token_and_hides_the_reason_without_it(
    mini_store: EventStore, run_id: str, neo4j_settings: Any, encoder: Any
) -> None:
    attempt = f"{run_id}:i-mini-04"
    listing = "query($runs: [ID!]) { pendingAdjudications(runs: $runs) { attemptId judgeRationale question } }"
    ruling = (
        'mutation($a: ID!) { adjudicate(attempt: $a, verdict: "pass", reason: "a secret why", '
        'adjudicator: "api-person", adjudicatedAt: "2026-01-07T08:00:00Z") { adjudicationId verdict headSeq } }'
    )
    with api_client(neo4j_settings, mini_store.driver, encoder, token=TOKEN) as client:
        anonymous = gql(client, listing, {"runs": [run_id]})
        assert error_codes(anonymous) == ["UNAUTHENTICATED"] and not (anonymous.get("data") or {}).get(
            "pendingAdjudications"
        )
        assert error_codes(gql(client, ruling, {"a": attempt})) == ["UNAUTHENTICATED"]
        assert error_codes(gql(client, listing, {"runs": ["no-such-run"]}, token=TOKEN)) == ["NOT_FOUND"]
        cases = data_of(gql(client, listing, {"runs": [run_id]}, token=TOKEN))["pendingAdjudications"]
        assert attempt in [c["attemptId"] for c in cases]
        assert all(c["judgeRationale"] for c in cases)
        recorded = data_of(gql(client, ruling, {"a": attempt}, token=TOKEN))["adjudicate"]
        assert recorded["verdict"] == "pass"
        again = data_of(gql(client, listing, {"runs": [run_id]}, token=TOKEN))["pendingAdjudications"]
        assert attempt not in [c["attemptId"] for c in again]
        assert error_codes(gql(client, ruling.replace("2026-01-07", "2026-01-08"), {"a": attempt}, token=TOKEN)) == [
            "CONFLICT"
        ]
        # The event log and the graph browser's node view carry the reason only for a request with the token.
        events = '{ events(type: "AnswerAdjudicated", first: 50) { events { payload redactedFields } } }'
        shown = [e["payload"] for e in data_of(gql(client, events, token=TOKEN))["events"]["events"]]
        hidden = data_of(gql(client, events))["events"]["events"]
        assert "a secret why" in [p["reason"] for p in shown]
        assert all(e["payload"]["reason"] is None for e in hidden) and hidden[0]["redactedFields"]
        node = "query($id: ID!) { node(id: $id) { label properties redactedFields } }"
        anon_node = data_of(gql(client, node, {"id": recorded["adjudicationId"]}))["node"]
        assert anon_node["label"] == "Adjudication" and anon_node["properties"]["reason"] is None
        assert "reason" in " ".join(anon_node["redactedFields"])
        token_node = data_of(gql(client, node, {"id": recorded["adjudicationId"]}, token=TOKEN))["node"]
        assert token_node["properties"]["reason"] == "a secret why"
