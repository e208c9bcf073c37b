"""A batch id hashes the prompts its runs send and no others: a changed synthesis or `eval qa` template leaves
the id of a run batch as it was (so the same command still resumes it), a changed answer prompt does not."""

from __future__ import annotations

from pathlib import Path

from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.prompts.registry import PromptSet, builtin_prompts
from agents.prompts.template import PromptTemplate
from agents.runs.plan import RunOptions, batch_prompt_names, plan_batch
from graph.store import EventStore


def _batch_id(store: EventStore, prompts: PromptSet, tmp_path: Path) -> tuple[str, dict[str, str]]:
    base = {"base_url": "http://127.0.0.1:9/v1", "model": "fake-model"}
    roles = LLMRoles(overrides={r: dict(base) for r in ("answerer", "judge")}, cache_path=tmp_path / "c.sqlite")
    try:
        assert store.encoder is not None
        plan = plan_batch(
            store, parse_methods("HYBRID"), RunOptions(dataset="mini", judges=("accuracy",)), roles, prompts,
            encoder_id=store.encoder.encoder_id,
        )
    finally:
        roles.close()
    return plan.batch_id, plan.config["prompts"]


def _changed(name: str) -> PromptSet:
    original = builtin_prompts()[name]
    return PromptSet({name: PromptTemplate(name, original.version, original.text + "\n", source="test")})


def test_a_changed_synthesis_or_qa_prompt_keeps_the_batch_id_and_a_changed_answer_prompt_changes_it(
    mini_store: EventStore, tmp_path: Path
) -> None:
    default_id, hashed = _batch_id(mini_store, PromptSet(), tmp_path)
    assert set(hashed) == set(batch_prompt_names(parse_methods("HYBRID"), ("accuracy",)))
    assert "answer" in hashed and "judge_accuracy" in hashed
    assert not any(name.startswith(("synth_", "qa_")) for name in hashed)
    for other in ("synth_item_builder", "qa_memory_answer", "judge_memory_systems_qa"):
        assert _batch_id(mini_store, _changed(other), tmp_path)[0] == default_id, other
    for used in ("answer", "judge_accuracy"):
        assert _batch_id(mini_store, _changed(used), tmp_path)[0] != default_id, used
