"""The memory QA axis (`eval memory --judges qa`, HaluMem's QA axis) on the fake OpenAI server: each question
of the profile is answered from the memories only and sorted into correct / hallucination / omission, with
hand-computed shares over the "all" and "valid" denominators, verdicts tied to the question they judged, and
no question or reference answer in any event payload or report (the reason is redacted as gold).

The profile is the memory-quality one (tests/agents/memory_quality/test_eval_memory.py) with five questions:
two the memories answer (cat, dose), one about a fact never remembered (omission), one the invented memory
answers wrongly (hallucination), one whose judge reply is never valid; and one item without a reference answer
(not a target)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.judging.registry import parse_memory_judges
from agents.memory_quality.pipeline import run_memory_judges
from agents.memory_quality.report import build_memory_quality_data
from agents.prompts.registry import PromptSet, builtin_prompts
from agents.reports.write import write_report
from api.redaction import redact_gold
from graph.events import ItemCreated, NewEvent
from graph.store import EventStore
from tests.agents.memory_quality.test_eval_memory import PROFILE, SYSTEM, judge_roles, profile_events, row
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.memory_qa_script import MemoryQaScript

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

QUESTIONS = {  # item id -> (question, reference answer, question type)
    "q-cat": ("Which grey cat shares Maya's flat?", "Pepper", "single-session-user"),
    "q-dose": ("What lisinopril dose does Maya take daily now?", "20 mg daily", "knowledge-update"),
    "q-move": ("Where does Maya plan to move next spring?", "Lisbon", "single-session-user"),
    "q-sail": ("What sailboat does Maya own?", "Maya never mentioned owning any sailboat", "single-session-user"),
    "q-knee": ("Which painkiller does Maya take for her knee?", "ibuprofen", "single-session-user"),
}
INVALID_MARKER = "painkiller"


@pytest.fixture()
def qa_store(store: EventStore) -> EventStore:
    items = [
        ItemCreated(item_id=iid, profile_id=PROFILE, dataset="mqtest", question=q, reference_answer=a, question_type=t)
        for iid, (q, a, t) in QUESTIONS.items()
    ]
    items.append(ItemCreated(item_id="q-open", profile_id=PROFILE, dataset="mqtest", question="Anything else?"))
    store.append([*profile_events(), *(NewEvent(i, actor="test") for i in items)])
    return store


def test_qa_axis_sorts_answers_from_memories_with_all_and_valid_denominators_and_keeps_questions_out(
    qa_store: EventStore, tmp_path: Path
) -> None:
    assert {"judge_memory_qa", "answer_from_memories"} <= set(builtin_prompts())
    script = MemoryQaScript(invalid_when=(INVALID_MARKER,))
    with FakeOpenAI(script) as fake:
        roles = judge_roles(fake, tmp_path)
        try:
            outcome = run_memory_judges(
                qa_store, SYSTEM, [PROFILE], parse_memory_judges("qa"), roles.client("judge"), PromptSet()
            )
            again = run_memory_judges(
                qa_store, SYSTEM, [PROFILE], parse_memory_judges("qa"), roles.client("judge"), PromptSet()
            )
        finally:
            roles.close()
    assert outcome.targets == {"memory_qa": 5}  # q-open has no reference answer
    assert outcome.invalid == {"memory_qa": 1} and sum(outcome.failed.values()) == 0
    assert again.skipped == {"memory_qa": 5} and sum(again.judged.values()) == 0  # resumed: nothing asked again
    assert script.requests["MemoryAnswerOut"] == 5

    data = build_memory_quality_data(
        qa_store.driver, qa_store.database, SYSTEM, "mqtest", [PROFILE], judged=outcome.as_dict(), notes=[]
    )
    tables = {t["axis"]: t for t in data["systems"][0]["tables"]}
    assert list(tables) == ["qa"]
    everything = row(tables["qa"], "all")
    assert (everything["n_all"], everything["n_valid"], everything["n_invalid"]) == (5, 4, 1)
    assert everything["counts"] == {"correct": 2, "hallucination": 1, "omission": 1}
    assert everything["rates_all"]["correct"] == pytest.approx(2 / 5)
    assert everything["rates_valid"]["correct"] == pytest.approx(2 / 4)
    assert everything["rates_all"]["hallucination"] == pytest.approx(1 / 5)
    assert everything["rates_valid"]["omission"] == pytest.approx(1 / 4)
    assert row(tables["qa"], "knowledge-update")["counts"]["correct"] == 1
    by_item = {r["item_id"]: r for r in data["systems"][0]["memory_judgments"]}
    assert {i: r["category"] for i, r in by_item.items() if r["valid"]} == {
        "q-cat": "correct",
        "q-dose": "correct",
        "q-move": "omission",
        "q-sail": "hallucination",
    }

    with qa_store.driver.session() as session:
        judged = session.run(
            "MATCH (j:MemoryJudgment {axis: 'qa'})-[:JUDGES]->(i:Item) RETURN i.id AS id ORDER BY id"
        ).value()
        cited = session.run(
            "MATCH (:MemoryJudgment {axis: 'qa', item_id: 'q-sail'})-[:CITES]->(m:Memory) RETURN m.id"
        ).value()
    assert judged == sorted(QUESTIONS)
    assert cited == ["m-invented"]  # the memory the hallucinated answer came from

    # questions and reference answers never leave the judge endpoint; the reason is redacted without the token
    payloads = [json.dumps(e.payload) for e in qa_store.read() if e.type == "MemoryJudged"]
    assert len(payloads) == 5
    for question, reference, _ in QUESTIONS.values():
        assert not any(question in p for p in payloads)
        assert not any(reference in p for p in payloads if reference not in ("Pepper", "20 mg daily", "ibuprofen"))
    found: list[str] = []
    redacted = redact_gold(data, found)
    assert all(r["reason"] is None for r in redacted["systems"][0]["memory_judgments"])
    page = Path(write_report(data, tmp_path / "report")).read_text("utf-8")
    assert "QA (per question answered from the memories only" in page
    assert not any(q in page for q, _, _ in QUESTIONS.values())
