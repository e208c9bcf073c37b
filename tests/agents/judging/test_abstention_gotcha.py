"""The abstention (flawed-premise) and gotcha judges on the real Neo4j with the fake OpenAI server: each judges
only the items its rule marks (labels / question_type / metadata), records a binary label with the SHA-256 of
both its prompts, a resumed run asks nothing again, invalid replies are recorded as invalid, the report counts
them; and a verbatim LongMemEval-V2 prompt (from ../shared/seeds/002, when present) reaches the endpoint as
printed and is labelled verbatim in the run record and the report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.judging.binary_label import final_answer
from agents.judging.item_kinds import ItemTraits, is_abstention_item, is_gotcha_item
from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.metrics.attempts import load_run_record
from agents.prompts.premise_judging import JUDGE_ABSTENTION, JUDGE_ABSTENTION_USER, JUDGE_GOTCHA
from agents.prompts.registry import PromptSet
from agents.reports.data import build_report_data
from agents.reports.markdown import render_markdown
from agents.runs.plan import BatchPlan, RunOptions, plan_batch
from agents.runs.runner import BatchReport, execute_batch
from graph.events import ItemCreated, NewEvent
from graph.store import EventStore
from tests.agents.prompts.test_pins import extract_judge_prompts, seed_text
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy
from tests.fake_openai.premise_script import PASS_MARK, PremiseJudgeScript

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

DATASET = "mini-premise"
JUDGES = ("accuracy", "abstention", "gotcha")


@pytest.fixture(scope="module")
def premise_store(mini_store: EventStore) -> EventStore:
    """The mini bundle plus three items of a dataset of their own: an abstention, a gotcha, a plain one."""
    asked = "2025-04-01T09:00:00Z"
    items = [
        ItemCreated(
            item_id="i-prem-abs", profile_id="mini-p-sam", dataset=DATASET, asked_at=asked, labels=["abstention"],
            question=f"When my {PASS_MARK} skydiving accident healed, could I give blood again?",
            reference_answer="Sam never mentioned a skydiving accident; the premise is false.",
        ),
        ItemCreated(
            item_id="i-prem-gotcha", profile_id="mini-p-ravi", dataset=DATASET, asked_at=asked,
            question_type="Gotcha", question="Should I stop the knee exercises once the crutches are gone?",
            reference_answer="No: the exercises matter most in the weeks after the crutches go.",
        ),
        ItemCreated(
            item_id="i-prem-plain", profile_id="mini-p-sam", dataset=DATASET, asked_at=asked,
            question="Can I give blood this Friday?", reference_answer="Not yet: wait 4 months after a tattoo.",
        ),
    ]  # fmt: skip
    mini_store.append([NewEvent(i, actor="test") for i in items])
    return mini_store


@pytest.fixture(scope="module")
def retriever(premise_store: EventStore) -> Iterator[Any]:
    from query.retriever import Retriever

    r = Retriever(premise_store.driver, premise_store.encoder)  # type: ignore[arg-type]
    yield r
    r.close()


def run_premise_batch(
    store: EventStore, retriever: Any, fake: FakeOpenAI, cache: Path, prompts: PromptSet, *, fresh: bool = False
) -> tuple[BatchPlan, BatchReport]:
    base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0}
    roles = LLMRoles(overrides={r: dict(base) for r in ("answerer", "judge")}, cache_path=cache)
    assert store.encoder is not None
    plan = plan_batch(
        store, parse_methods("HYBRID"), RunOptions(dataset=DATASET, judges=JUDGES, fresh=fresh), roles, prompts,
        encoder_id=store.encoder.encoder_id,
    )  # fmt: skip
    try:
        return plan, execute_batch(store, retriever, plan, roles, prompts, concurrency=2)
    finally:
        roles.close()


def judgments(store: EventStore, run_id: str) -> dict[str, dict[str, dict[str, Any]]]:
    with store.driver.session() as session:
        found = session.run(
            "MATCH (a:Attempt)-[:IN_RUN]->(:Run {id: $r}) MATCH (a)-[:JUDGED_BY]->(j:Judgment) "
            "RETURN a.item_id AS item, j {.*} AS j",
            r=run_id,
        )
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for row in found:
            out.setdefault(row["item"], {})[row["j"]["kind"]] = dict(row["j"])
    return out


def test_item_rule_marks_abstention_and_gotcha_items_from_labels_type_or_metadata() -> None:
    assert is_abstention_item(ItemTraits(labels=("abstention",)))
    assert is_abstention_item(ItemTraits(question_type="Flawed-Premise"))
    assert is_abstention_item(ItemTraits.from_row(None, [], json.dumps({"abstention": True})))
    assert is_gotcha_item(ItemTraits(question_type="gotchas")) and is_gotcha_item(ItemTraits(labels=("gotcha",)))
    assert not is_abstention_item(ItemTraits(question_type="gotcha", metadata={"abstention": "yes"}))
    assert not is_gotcha_item(ItemTraits(labels=("history_dependent",)))


def test_final_answer_is_the_last_boxed_content_or_the_whole_answer() -> None:
    assert final_answer(r"think... \boxed{UNKNOWN} then \boxed{the premise is wrong: no {such} trip}") == (
        "the premise is wrong: no {such} trip"
    )
    assert final_answer("plain answer") == "plain answer"


def test_abstention_and_gotcha_judges_label_only_their_items_and_a_resumed_run_asks_nothing_again(
    premise_store: EventStore, retriever: Any, tmp_path: Path
) -> None:
    script = PremiseJudgeScript(fallback=AutoPolicy())
    with FakeOpenAI(script) as fake:
        plan, report = run_premise_batch(premise_store, retriever, fake, tmp_path / "c.sqlite", PromptSet())
        assert not report.failed
        run_id = plan.runs[0].run_id
        found = judgments(premise_store, run_id)
        assert {item: sorted(kinds) for item, kinds in found.items()} == {
            "i-prem-abs": ["abstention", "accuracy"],
            "i-prem-gotcha": ["accuracy", "gotcha"],
            "i-prem-plain": ["accuracy"],
        }
        abstention, gotcha = found["i-prem-abs"]["abstention"], found["i-prem-gotcha"]["gotcha"]
        assert (abstention["verdict"], abstention["score"], abstention["valid"]) == ("pass", 1.0, True)
        assert (gotcha["verdict"], gotcha["score"]) == ("fail", 0.0)
        assert abstention["prompt_sha256"] == JUDGE_ABSTENTION.sha256 and gotcha["prompt_sha256"] == JUDGE_GOTCHA.sha256
        details = json.loads(abstention["details"])
        assert details["label"] == 1 and details["prompts"]["user"]["sha256"] == JUDGE_ABSTENTION_USER.sha256
        assert "verbatim" not in details["prompts"]["system"]  # the project's own prompt
        assert script.requests == 2 and all(p.startswith(JUDGE_ABSTENTION.text[:40]) or p.startswith(
            JUDGE_GOTCHA.text[:40]) for p in script.system_prompts)  # fmt: skip
        record = load_run_record(premise_store.driver, "neo4j", run_id)
        assert {"judge_abstention", "judge_abstention_user", "judge_gotcha", "judge_gotcha_user"} <= set(
            record.prompt_hashes
        )
        asked = len(fake.requests)
        _, again = run_premise_batch(premise_store, retriever, fake, tmp_path / "c.sqlite", PromptSet())
        assert len(fake.requests) == asked and not again.failed  # every applicable judgment exists
    markdown = render_markdown(build_report_data(premise_store.driver, "neo4j", [run_id], resamples=100))
    assert "## Abstention and gotcha judges" in markdown
    assert "| HYBRID | abstention | 1 | 1 | 0 | 0 | 100.0% |" in markdown.replace("No Memory + Hybrid", "HYBRID")
    assert "scripted label" not in markdown  # the judge's reason is gold: never in the report


def test_invalid_binary_label_reply_is_recorded_as_an_invalid_verdict(
    premise_store: EventStore, retriever: Any, tmp_path: Path
) -> None:
    script = PremiseJudgeScript(fallback=AutoPolicy(), invalid=True)
    with FakeOpenAI(script) as fake:
        plan, _ = run_premise_batch(premise_store, retriever, fake, tmp_path / "c.sqlite", PromptSet(), fresh=True)
    found = judgments(premise_store, plan.runs[0].run_id)
    abstention = found["i-prem-abs"]["abstention"]
    assert abstention["valid"] is False and abstention.get("verdict") is None
    assert "problem" in json.loads(abstention["details"])


def test_verbatim_published_abstention_prompt_reaches_the_endpoint_and_is_labelled_in_record_and_report(
    premise_store: EventStore, retriever: Any, tmp_path: Path
) -> None:
    _, published, text = extract_judge_prompts(seed_text())[0]
    path = tmp_path / "abstention_system.txt"
    path.write_bytes(text.encode("utf-8"))
    prompts = PromptSet.from_config([f"judge_abstention={path}@{published}"])
    script = PremiseJudgeScript(fallback=AutoPolicy())
    with FakeOpenAI(script) as fake:
        plan, _ = run_premise_batch(premise_store, retriever, fake, tmp_path / "c.sqlite", prompts)
    assert any(p.startswith(text) for p in script.system_prompts)  # sent as printed (the JSON schema may follow)
    run_id = plan.runs[0].run_id
    label = f"verbatim LongMemEval-V2 abstention judge system prompt, sha256 {published}"
    record = load_run_record(premise_store.driver, "neo4j", run_id)
    assert record.prompt_hashes["judge_abstention"]["verbatim"] == label
    verdict = judgments(premise_store, run_id)["i-prem-abs"]["abstention"]
    assert verdict["prompt_sha256"] == published
    assert json.loads(verdict["details"])["prompts"]["system"]["verbatim"] == label
    data = build_report_data(premise_store.driver, "neo4j", [run_id], resamples=100)
    assert any(label in n for n in data["notes"]) and f"`judge_abstention`: {label}" in render_markdown(data)
