"""The judge registry: one name per judge everywhere (CLI, AnswerJudged kind, prompt name), planning and
execution loop over it, and a new judge needs only its own module and one registration (a toy judge here)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.judging.base import Judge, JudgeCall, prompt_name_for
from agents.judging.registry import (
    JUDGES,
    UnknownJudgeError,
    parse_judges,
    register_judge,
    unregister_judge,
)
from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.metrics.attempts import load_attempt_metrics, load_run_record
from agents.prompts.registry import PromptSet, builtin_prompts
from agents.prompts.template import PromptTemplate, render_messages
from agents.runs.plan import RunOptions, plan_batch, prompt_names_for
from agents.runs.runner import execute_batch
from graph.events import AnswerJudged
from graph.store import EventStore
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.policy import AutoPolicy, schema_title

TOY_PROMPT = PromptTemplate(
    "judge_toy_brevity",
    "1",
    "[[system]]\nSay how short the answer is.\n[[user]]\n$answer",
)


class ToyJudge(Judge):
    name = "toy_brevity"
    verdict_kind = "score"
    description = "a toy: scores the answer's brevity (only for passed answers)"
    needs_accuracy = True
    metrics = ("quality",)

    def templates(self) -> tuple[PromptTemplate, ...]:
        return (TOY_PROMPT,)

    def applies(self, accuracy_verdict: str | None) -> bool:
        return accuracy_verdict == "pass"

    def judge(self, call: JudgeCall, kinds: list[str]) -> list[AnswerJudged]:
        template = call.prompts[prompt_name_for(self.name)]
        reply = call.llm.chat(render_messages(template, answer=call.material.answer))
        return [
            AnswerJudged(
                judgment_id=f"{call.attempt_id}:{self.name}:{template.sha256[:10]}",
                attempt_id=call.attempt_id,
                kind=self.name,
                judge_model=call.llm.model,
                prompt_name=template.name,
                prompt_version=template.version,
                prompt_sha256=template.sha256,
                score=float(len(reply.content or "")),
                rationale="toy",
            )
        ]

    def metric_fields(self, judgment: Any) -> dict[str, Any]:
        return {"quality": {"toy_brevity": float(judgment["score"])}}


@pytest.fixture()
def toy() -> Iterator[ToyJudge]:
    judge = ToyJudge()
    register_judge(judge)  # the one registration
    yield judge
    unregister_judge(judge.name)


def test_builtin_judges_have_one_name_everywhere() -> None:
    assert list(JUDGES) == ["accuracy", "quality", "error_analysis", "abstention", "gotcha"]
    prompts = builtin_prompts()
    for judge in JUDGES.values():
        for kind, prompt in zip(judge.kinds(), judge.prompt_names(), strict=True):
            assert kind == judge.name or kind.startswith(judge.name + ":")
            assert prompt == "judge_" + kind.replace(":", "_") and prompt in prompts
    assert parse_judges("all") == ("accuracy", "quality", "error_analysis", "abstention", "gotcha")
    assert parse_judges("error_analysis,accuracy") == ("accuracy", "error_analysis")  # registry order
    assert parse_judges("none") == ()
    with pytest.raises(UnknownJudgeError, match="choose from accuracy, quality, error_analysis, abstention, gotcha"):
        parse_judges("errors")


def test_register_judge_refuses_a_judge_without_its_prompt() -> None:
    class Broken(ToyJudge):
        name = "broken"

    with pytest.raises(ValueError, match="judge_broken"):
        register_judge(Broken())
    assert "broken" not in JUDGES


@pytest.mark.neo4j
def test_a_registered_toy_judge_is_planned_run_recorded_and_counted(
    toy: ToyJudge, mini_store: EventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    monkeypatch.setenv("COLABENCH_CONFIG", str(empty))
    monkeypatch.setenv("COLABENCH_DATA_DIR", str(tmp_path / "data"))
    assert "judge_toy_brevity" in builtin_prompts()
    judges = parse_judges("accuracy,toy_brevity")
    assert "judge_toy_brevity" in prompt_names_for(parse_methods("HYBRID")[0], judges)
    policy = AutoPolicy()

    def respond(body: dict[str, Any]) -> Reply:
        if "Say how short the answer is." in str(body["messages"][0].get("content")):
            return Reply.text("short")
        return policy(body)

    from query.retriever import Retriever

    retriever = Retriever(mini_store.driver, mini_store.encoder)  # type: ignore[arg-type]
    with FakeOpenAI(respond) as fake:
        base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0}
        roles = LLMRoles(overrides={r: dict(base) for r in ("answerer", "judge")}, cache_path=tmp_path / "c.sqlite")
        prompts = PromptSet()
        assert mini_store.encoder is not None
        plan = plan_batch(
            mini_store, parse_methods("HYBRID"), RunOptions(dataset="mini", judges=judges, fresh=True), roles,
            prompts, encoder_id=mini_store.encoder.encoder_id,
        )
        try:
            execute_batch(mini_store, retriever, plan, roles, prompts, concurrency=1)
        finally:
            roles.close()
            retriever.close()
        toy_calls = [b for b in fake.requests if schema_title(b) is None and not b.get("tools")
                     and "Say how short" in str(b["messages"][0].get("content"))]
    run = load_run_record(mini_store.driver, "neo4j", plan.runs[0].run_id)
    assert "judge_toy_brevity" in run.prompt_hashes
    rows = load_attempt_metrics(mini_store.driver, "neo4j", run)
    passed = [r for r in rows if r.verdict == "pass"]
    assert passed, "the fixture needs a passed answer"
    assert len(toy_calls) == len(passed)  # it applies to passed answers only
    assert all(r.quality.get("toy_brevity") == 5.0 for r in passed)
    assert not any("toy_brevity" in r.quality for r in rows if r.verdict != "pass")
    with mini_store.driver.session() as session:
        kinds = {rec["k"] for rec in session.run("MATCH (j:Judgment) WHERE j.attempt_id STARTS WITH $r "
                                                  "RETURN DISTINCT j.kind AS k", r=plan.runs[0].run_id)}
    assert kinds == {"accuracy", "toy_brevity"}


def test_the_premise_section_lists_the_judges_that_name_it_not_a_fixed_list(toy: ToyJudge) -> None:
    from agents.reports.sections.premise_judges import section_judges

    assert [j.name for j in section_judges()] == ["abstention", "gotcha"]
    type(toy).report_section = "premise_judges"  # a judge joins the section by declaring it
    try:
        assert [j.name for j in section_judges()] == ["abstention", "gotcha", "toy_brevity"]
    finally:
        type(toy).report_section = None
    assert "toy_brevity" not in [j.name for j in section_judges()]
