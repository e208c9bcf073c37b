"""Prompts put what many calls share first and what one call alone has last, so an endpoint's prefix cache
(OpenAI, vLLM, llama.cpp) can reuse the shared head: for each shipped prompt, its placeholders appear in tiers
from the most shared (the same for a whole run or a whole profile) to the most specific (one attempt). No
Neo4j, no endpoint."""

from __future__ import annotations

import itertools

import pytest

from agents.prompts.registry import builtin_prompts
from agents.prompts.template import render_messages

_ITEM = ("asked_at", "question", "reference_answer", "requirements", "documents")
_QUALITY = [("history",), _ITEM, ("evidence", "answer")]

# template -> placeholder tiers, most shared first. Run-wide values (the round budget, the method's blocks),
# then per profile (the history, the memories or gold facts of one user), then per item, then per attempt.
TIERS: dict[str, list[tuple[str, ...]]] = {
    "answer": [("max_rounds", "attribution_block", "state_block"), ("asked_at", "question")],
    "state_summary": [("max_states",), ("history",)],
    "judge_accuracy": [("history",), _ITEM, ("states", "evidence", "answer")],
    "judge_error_analysis": [("history",), _ITEM, ("states", "evidence", "answer"), ("accuracy_rationale",)],
    "judge_memory_integrity": [("memories",), ("expected_point",)],
    "judge_memory_accuracy": [("gold_facts",), ("turns", "memory")],
    "judge_memory_update": [("memories",), ("earlier_fact", "newer_fact")],
    "answer_from_memories": [("question",), ("memories",)],
    "qa_reader_direct": [("history",), ("asked_at", "question")],
    "qa_reader_chain_of_note": [("history",), ("asked_at", "question")],
    "judge_abstention_user": [("question", "reference_answer"), ("model_full_response", "model_final_answer")],
    "judge_gotcha_user": [("question", "reference_answer"), ("model_full_response", "model_final_answer")],
    **{f"judge_quality_{d}": _QUALITY for d in ("state_fidelity", "condition_coverage", "evidence_grounding",
                                                "rule_application", "answer_completeness")},
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(TIERS))
def test_shared_inputs_come_before_specific_ones(name: str) -> None:
    template = builtin_prompts()[name]
    tiers = TIERS[name]
    assert {p for tier in tiers for p in tier} == set(template.placeholders), "the tiers do not cover the prompt"
    markers = {p: f"<<{p}>>" for p in template.placeholders}
    text = template.render(**markers)
    positions = {p: text.index(marker) for p, marker in markers.items()}
    for earlier, later in itertools.pairwise(tiers):
        last_shared = max(positions[p] for p in earlier)
        first_specific = min(positions[p] for p in later)
        assert last_shared < first_specific, f"{name}: {later} come before {earlier}"


def test_two_items_of_one_profile_share_the_judge_prompt_through_the_whole_history() -> None:
    template = builtin_prompts()["judge_accuracy"]
    common = {"history": "H" * 500, "states": "s", "evidence": "e", "answer": "a", "documents": "d"}
    one = render_messages(template, **common, asked_at="t1", question="q1", reference_answer="r1", requirements="x")
    two = render_messages(template, **common, asked_at="t2", question="q2", reference_answer="r2", requirements="y")
    assert one[0] == two[0]
    shared = 0
    while one[1]["content"][shared] == two[1]["content"][shared]:
        shared += 1
    assert one[1]["content"].index("H" * 500) + 500 <= shared
