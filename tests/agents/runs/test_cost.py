"""What a run will cost, before and while it runs (issue 25 items 1-2): `run --dry-run` sends no request and
writes no event, and its call counts are the ones a real run then sends where they are exact; a spending limit
stops a run as an incomplete, resumable one whose resume finishes it without duplicate events; `--max-cost`
without a price for a model in use is a usage error (exit 2) naming the model; `[llm.prices]` prices the
ledger."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from agents.answerer import Budget
from agents.llm.errors import LLMConfigError
from agents.llm.prices import PriceTable
from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.prompts.registry import PromptSet
from agents.runs.dry_run import estimate_batch
from agents.runs.plan import RunOptions, plan_batch
from agents.runs.runner import execute_batch
from graph.store import EventStore
from tests.cli.test_run_and_report_processes import cli_env, colabench
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy, schema_title
from tests.paths import FIXTURES

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

PRICED = '[llm.prices."fake-model"]\ninput = 1000000.0\noutput = 2000000.0\n'  # $1 / $2 per token: easy sums


def _count(store: EventStore, query: str, **params: Any) -> int:
    with store.driver.session(database=store.database) as session:
        return int(session.run(query, **params).single()[0])


def test_dry_run_counts_the_calls_a_real_run_then_sends(mini_store: EventStore, mini_retriever: Any,
                                                        tmp_path: Path) -> None:
    with FakeOpenAI(AutoPolicy()) as fake:
        base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0}
        roles = LLMRoles(overrides={r: dict(base) for r in ("answerer", "judge", "state")},
                         cache_path=tmp_path / "c.sqlite", cache_mode="off")
        prompts = PromptSet()
        assert mini_store.encoder is not None
        # no tool rounds: one answerer call per attempt and one accuracy verdict each, so the counts are exact
        options = RunOptions(dataset="mini", judges=("accuracy",), fresh=True, budget=Budget(max_tool_rounds=0))
        plan = plan_batch(mini_store, parse_methods("HYBRID,MEMKB_RAW_TURNS"), options, roles, prompts,
                          encoder_id=mini_store.encoder.encoder_id)
        head = mini_store.head().seq
        estimate = estimate_batch(mini_store, plan, roles, prompts)
        assert fake.requests == [] and fake.tokenize_requests == 0
        assert mini_store.head().seq == head
        by_role = {r.role: r for r in estimate.roles}
        assert by_role["answerer"].calls_min == by_role["answerer"].calls_max == 8
        assert by_role["judge"].calls_min == 8
        assert by_role["answerer"].tokens_in > 0 and by_role["judge"].tokens_in > 0
        assert by_role["state"].calls_min == 2  # MEMKB_RAW_TURNS shows S(H): one summary per profile
        try:
            execute_batch(mini_store, mini_retriever, plan, roles, prompts, concurrency=2)
        finally:
            roles.close()
        sent_answerer = sum(1 for b in fake.requests if schema_title(b) is None)
        sent_judge = sum(1 for b in fake.requests if schema_title(b) == "AccuracyOut")
        sent_state = sum(1 for b in fake.requests if schema_title(b) == "StateSummaryOut")
    assert sent_answerer == by_role["answerer"].calls_min
    assert by_role["judge"].calls_min <= sent_judge <= by_role["judge"].calls_max
    assert sent_judge == 8  # the fake's verdicts are valid at once: no re-asks
    assert sent_state == by_role["state"].calls_min


def test_dry_run_on_the_command_line_sends_and_writes_nothing(mini_store: EventStore, tmp_path: Path) -> None:
    with FakeOpenAI(AutoPolicy()) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model")
        head = mini_store.head().seq
        done = colabench(["run", "--methods", "MEMKB,HYBRID", "--dataset", "mini", "--dry-run"], env)
        assert done.returncode == 0, done.stderr
        assert fake.requests == [] and fake.tokenize_requests == 0
    assert mini_store.head().seq == head
    text = " ".join(done.stdout.split())
    assert "dry run" in text and "nothing sent" in text
    assert "cost: set [llm.prices]" in text  # no prices: token figures only
    assert "answerer" in text and "judge" in text and "state" in text


def test_dry_run_without_an_llm_names_the_unconfigured_roles(mini_store: EventStore, tmp_path: Path) -> None:
    done = colabench(["run", "--methods", "HYBRID", "--dataset", "mini", "--dry-run"], cli_env(tmp_path))
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "role 'answerer' has no LLM endpoint configured" in text


def test_dry_run_prices_the_estimate_from_the_price_table(mini_store: EventStore, tmp_path: Path) -> None:
    config = tmp_path / "priced.toml"
    config.write_text(PRICED)
    env = cli_env(tmp_path, COLABENCH_CONFIG=str(config), COLABENCH_LLM_BASE_URL="http://127.0.0.1:9/v1",
                  COLABENCH_LLM_MODEL="fake-model")
    done = colabench(["run", "--methods", "HYBRID", "--dataset", "mini", "--judges", "none", "--max-rounds", "0",
                      "--dry-run"], env)
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "prices from [llm.prices]" in text and "n/a (no prices)" not in text


def test_max_cost_without_a_price_is_a_usage_error_naming_the_model(mini_store: EventStore, tmp_path: Path) -> None:
    with FakeOpenAI(AutoPolicy()) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model")
        done = colabench(["run", "--methods", "HYBRID", "--dataset", "mini", "--max-cost", "1"], env)
        assert fake.requests == []
    assert done.returncode == 2, done.stderr
    assert "fake-model" in done.stderr and "llm.prices" in done.stderr


def _answers(store: EventStore, batch: str) -> tuple[int, int]:
    """(AnswerGiven events, attempts answered) of the batch's runs."""
    events = _count(store, "MATCH (e:Event {type: 'AnswerGiven'}) WHERE e.payload CONTAINS $b RETURN count(e)",
                    b=batch)
    answered = _count(store, "MATCH (a:Attempt {status: 'answered'})-[:IN_RUN]->(r:Run {batch_id: $b}) "
                             "RETURN count(a)", b=batch)
    return events, answered


@pytest.mark.parametrize("limit", [["--max-tokens", "1"], ["--max-cost", "0.5"]])
def test_a_budget_stops_the_run_and_the_resume_finishes_it_without_duplicates(
    mini_store: EventStore, tmp_path: Path, limit: list[str]
) -> None:
    config = tmp_path / "priced.toml"
    config.write_text(PRICED)
    with FakeOpenAI(AutoPolicy()) as fake:
        env = cli_env(tmp_path, COLABENCH_CONFIG=str(config), COLABENCH_LLM_BASE_URL=fake.base_url,
                      COLABENCH_LLM_MODEL="fake-model", COLABENCH_LLM_CACHE_MODE="off")
        args = ["run", "--methods", "HYBRID", "--dataset", "mini", "--judges", "none", "--max-rounds", "0",
                "--concurrency", "1", "--no-report", "--fresh", *limit]
        stopped = colabench(args, env)
        assert stopped.returncode == 3, stopped.stderr
        said = " ".join(stopped.stderr.split())
        assert "left incomplete" in said and "budget reached:" in said
        # one request was under the limit when it was sent, and no other one was sent after it
        assert len(fake.requests) == 1
        resume = said.split("Resume with: ", 1)[1].split(" ./colabench")[0].strip()
        words = shlex.split(resume)
        assert words[:2] == ["./colabench", "run"] and "--resume" in words and "--fresh" not in words
        batch = words[words.index("--resume") + 1]
        assert _answers(mini_store, batch) == (1, 1)
        reasons = _count(mini_store, "MATCH (e:Event {type: 'RunLeftIncomplete'}) WHERE e.payload CONTAINS $b "
                                     "AND e.payload CONTAINS 'budget reached' RETURN count(e)", b=batch)
        assert reasons == 1
        # the printed command resumes under the same per-invocation limit: one more attempt
        again = colabench(words[1:], env)
        assert again.returncode == 3, again.stderr
        assert _answers(mini_store, batch) == (2, 2)
        rest = words[1:]
        at = rest.index(limit[0])
        unlimited = rest[:at] + rest[at + 2 :]  # the same command without the limit
        finished = colabench(unlimited, env)
        assert finished.returncode == 0, finished.stderr
        assert len(fake.requests) == 4  # each item asked once over the three invocations
    assert _answers(mini_store, batch) == (4, 4)


def test_the_price_table_prices_the_ledger_and_refuses_a_bad_entry(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "prices.toml"
    config.write_text(PRICED + '[llm.prices."other"]\ninput = 1.0\noutput = -2\n')
    monkeypatch.setenv("COLABENCH_CONFIG", str(config))
    with pytest.raises(LLMConfigError, match=r'prices.toml: \[llm.prices."other"\] field output'):
        PriceTable.load()
    config.write_text(PRICED)
    monkeypatch.setenv("COLABENCH_LLM_MODEL", "fake-model")
    roles = LLMRoles(cache_mode="off", exchanges_path=tmp_path / "x.sqlite")
    try:
        assert roles.settings["judge"].price_in_per_mtok == 1_000_000.0
        assert roles.settings["judge"].price_out_per_mtok == 2_000_000.0
    finally:
        roles.close()



def test_a_budget_refuses_the_request_after_the_one_that_reached_it() -> None:
    from agents.llm.budget import LLMBudgetReachedError, SpendingBudget, Spent

    spent = [Spent(0, 0.0)]
    budget = SpendingBudget(max_cost_usd=0.01, max_tokens=1000, spent=lambda: spent[-1])
    budget.before_request("answerer")  # nothing spent: sent
    spent.append(Spent(999, 0.0099))
    budget.before_request("judge")  # still under both limits: sent
    spent.append(Spent(999, 0.0100))
    with pytest.raises(LLMBudgetReachedError, match=r"budget reached: \$0.0100 spent of --max-cost 0.01 USD"):
        budget.before_request("judge")
    spent.append(Spent(0, 0.0))  # the first reason stays: a stopped command does not start again
    with pytest.raises(LLMBudgetReachedError):
        budget.before_request("answerer")


def test_report_costs_are_per_role_and_item_and_na_without_prices() -> None:
    from agents.reports.costs import NO_PRICES, cost_rows, run_cost

    priced = {"answerer": {"calls": 4, "billed_tokens_in": 300, "billed_tokens_out": 100, "cost_usd": 0.5},
              "judge": {"calls": 4, "billed_tokens_in": 100, "billed_tokens_out": 0, "cost_usd": 0.25},
              "total": {"cost_usd": 0.75}}
    cost = run_cost(priced, 4)
    assert cost["cost_usd"] == 0.75 and cost["tokens_per_item"] == 125 and cost["cost_per_item_usd"] == 0.1875
    unpriced = {**priced, "judge": {**priced["judge"], "cost_usd": None}}
    assert run_cost(unpriced, 4)["cost_usd"] is None
    rows = cost_rows([{"label": "HYBRID", "cost": run_cost(unpriced, 4)}])
    assert rows[-1][1] == "total" and rows[-1][4] == NO_PRICES
    assert rows[1][4] == NO_PRICES and rows[0][4] == "$0.5000"


# --- eval qa: the same limits (last in the module: it empties the graph) -------------------------------------

QA_FILE = FIXTURES / "longmemeval_qa_mini" / "longmemeval_oracle_qa.json"


@pytest.fixture(scope="module")
def qa_store(driver: Any, encoder: Any) -> EventStore:
    from tests.conftest import emptied_store

    return emptied_store(driver, encoder)  # type: ignore[no-any-return]


def test_eval_qa_stops_at_its_budget_and_the_rerun_finishes_without_duplicates(
    qa_store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from cli import app
    from tests.fake_openai.qa_script import QaScript

    with FakeOpenAI(QaScript(answers={})) as fake:
        monkeypatch.setenv("COLABENCH_LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("COLABENCH_LLM_MODEL", "fake-model")
        monkeypatch.setenv("COLABENCH_LLM_CACHE_MODE", "off")
        args = ["eval", "qa", "--path", str(QA_FILE), "--feed", "oracle"]
        unpriced = CliRunner().invoke(app, [*args, "--max-cost", "1"])
        assert unpriced.exit_code == 2 and "fake-model" in unpriced.output
        assert fake.requests == []
        stopped = CliRunner().invoke(app, [*args, "--max-tokens", "1"])
        assert stopped.exit_code == 3, stopped.output
        assert "budget reached" in " ".join(stopped.output.split())
        assert len(fake.requests) == 1  # the first reader request; nothing after it
        finished = CliRunner().invoke(app, args)
        assert finished.exit_code == 0, finished.output
    answered = _count(qa_store, "MATCH (e:Event {type: 'QaAnswered'}) RETURN count(e)")
    judged = _count(qa_store, "MATCH (e:Event {type: 'QaAnswerJudged'}) RETURN count(e)")
    assert answered == judged == 6


def test_eval_qa_dry_run_sends_nothing_and_counts_what_the_run_sends(
    qa_store: EventStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json

    from typer.testing import CliRunner

    from cli import app
    from tests.fake_openai.qa_script import QaScript

    with FakeOpenAI(QaScript(answers={})) as fake:
        monkeypatch.setenv("COLABENCH_LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("COLABENCH_LLM_MODEL", "fake-model")
        monkeypatch.setenv("COLABENCH_LLM_CACHE_MODE", "off")
        # the file is in the graph (the test above ingested it); another reader is another run: all 6 to do
        args = ["eval", "qa", "--path", str(QA_FILE), "--feed", "oracle", "--reader", "chain-of-note"]
        head = qa_store.head().seq
        out = tmp_path / "dry.json"
        dry = CliRunner().invoke(app, [*args, "--dry-run", "--out", str(out)])
        assert dry.exit_code == 0, dry.output
        assert fake.requests == [] and fake.tokenize_requests == 0
        assert qa_store.head().seq == head
        estimate = json.loads(out.read_text())
        by_role = {r["role"]: r for r in estimate["roles"]}
        assert estimate["to_answer"] == estimate["to_judge"] == 6
        assert by_role["answerer"]["calls_min"] == by_role["judge"]["calls_min"] == 6
        assert by_role["answerer"]["tokens_in"] > 0 and by_role["judge"]["tokens_in"] > 0
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 0, done.output
        assert len(fake.requests) == by_role["answerer"]["calls_min"] + by_role["judge"]["calls_min"]


def test_the_price_table_fills_the_cached_price_of_a_role() -> None:
    from agents.llm.prices import ModelPrice, PriceTable, with_prices
    from agents.llm.settings import LLMRoleSettings

    table = PriceTable({"m": ModelPrice(input=1.0, output=2.0, cached=0.25)})
    filled = with_prices(LLMRoleSettings(model="m"), table)
    assert (filled.price_in_per_mtok, filled.price_out_per_mtok, filled.price_cached_per_mtok) == (1.0, 2.0, 0.25)
    own = with_prices(LLMRoleSettings(model="m", price_in_per_mtok=3.0, price_out_per_mtok=4.0), table)
    assert (own.price_in_per_mtok, own.price_cached_per_mtok) == (3.0, 0.25)
