"""Memory-quality evaluation (`eval memory`): the no-LLM coverage by query, the memory judges on the fake OpenAI
server with hand-computed integrity / accuracy / update figures and both denominators, verdicts as events tied
to the fact and the memory they judged, resume, gold redaction of reasons, and the command with and without an
LLM.

The profile: five disclosed facts (one never remembered, one superseded by a newer one), one fact never
disclosed, four memories (one invented, derived from an assistant turn that discloses nothing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agents.judging.registry import JUDGES, MEMORY_JUDGES, parse_judges, parse_memory_judges
from agents.llm.roles import LLMRoles
from agents.memory_quality.coverage import compute_coverage
from agents.memory_quality.pipeline import run_memory_judges
from agents.memory_quality.report import build_memory_quality_data
from agents.prompts.registry import PromptSet, builtin_prompts
from agents.reports.write import write_report
from api.redaction import redact_event, redact_gold
from graph.events import (
    FactDisclosed,
    FactRecorded,
    MemoryWritten,
    NewEvent,
    ProfileCreated,
    SessionStarted,
    TurnAppended,
)
from graph.store import EventStore
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.memory_quality_script import MemoryQualityScript
from tests.paths import REPO

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

PROFILE = "p-mq"
SYSTEM = "raw_turns"
FACTS = {
    "f-knee": ("medication", "Maya takes ibuprofen daily for knee arthritis pain."),
    "f-dose-old": ("medication", "Maya takes 10 mg of lisinopril."),
    "f-cat": ("household", "Maya shares her flat with a grey cat named Pepper."),
    "f-move": ("plans", "Maya plans to move to Lisbon next spring."),
    "f-dose-new": ("medication", "Maya's lisinopril dose went up to 20 mg daily."),
    "f-secret": ("plans", "Maya is saving for a sabbatical."),  # never disclosed: not an expected point
}
TURNS = [  # (turn id, role, text, disclosed facts)
    (
        "t1",
        "user",
        "I take ibuprofen daily for knee arthritis pain, and 10 mg of lisinopril.",
        ["f-knee", "f-dose-old"],
    ),
    ("t2", "assistant", "Noted.", []),
    ("t3", "user", "My grey cat Pepper shares my flat.", ["f-cat"]),
    ("t4", "assistant", "Cats are lovely.", []),
    ("t5", "user", "I plan to move to Lisbon next spring.", ["f-move"]),
    ("t6", "assistant", "Good luck with the move.", []),
    ("t7", "user", "Also, my lisinopril dose went up to 20 mg daily.", ["f-dose-new"]),
]
MEMORIES = {  # memory id -> (text, source turn)
    "m-knee": ("Maya takes ibuprofen daily for knee arthritis pain.", "t1"),
    "m-cat": ("Maya shares her flat with a grey cat named Pepper.", "t3"),
    "m-dose": ("Maya's lisinopril dose went up to 20 mg daily.", "t7"),
    "m-invented": ("Maya owns a red sailboat called Aurora.", "t4"),  # derived from no disclosing turn
}
INVALID_MARKER = "10 mg"  # the judge's reply on f-dose-old's integrity is never valid JSON


def profile_events() -> list[NewEvent]:
    events: list[Any] = [ProfileCreated(profile_id=PROFILE, dataset="mqtest", name="Maya")]
    for fid, (kind, text) in FACTS.items():
        metadata = {"supersedes": "f-dose-old"} if fid == "f-dose-new" else {}
        events.append(FactRecorded(fact_id=fid, profile_id=PROFILE, text=text, category=kind, metadata=metadata))
    events.append(SessionStarted(session_id="s-mq", profile_id=PROFILE, ordinal=0))
    for ordinal, (tid, role, text, _) in enumerate(TURNS):
        events.append(TurnAppended(turn_id=tid, session_id="s-mq", ordinal=ordinal, role=role, text=text))  # type: ignore[arg-type]
    events += [FactDisclosed(fact_id=f, turn_id=tid) for tid, _, _, facts in TURNS for f in facts]
    events += [
        MemoryWritten(system=SYSTEM, memory_id=mid, profile_id=PROFILE, op="ADD", text=text, source_turn_ids=[tid])
        for mid, (text, tid) in MEMORIES.items()
    ]
    return [NewEvent(e, actor="test") for e in events]


@pytest.fixture()
def mq_store(store: EventStore) -> EventStore:
    store.append(profile_events())
    return store


def judge_roles(fake: FakeOpenAI, tmp_path: Path) -> LLMRoles:
    settings = {"base_url": fake.base_url, "model": "fake-judge", "retry_base_s": 0.0, "timeout_s": 5.0}
    return LLMRoles(overrides={"judge": settings}, cache_path=tmp_path / "cache.sqlite", cache_mode="off")


def row(table: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(r for r in table["rows"] if r["kind"] == kind)


def test_coverage_counts_remembered_points_unanchored_memories_and_memories_per_turn(mq_store: EventStore) -> None:
    c = compute_coverage(mq_store.driver, mq_store.database, SYSTEM, [PROFILE])
    assert (c.n_facts, c.n_points, c.n_undisclosed, c.n_remembered) == (6, 5, 1, 4)
    assert c.recall == pytest.approx(0.8)
    assert [f["fact_id"] for f in c.forgotten] == ["f-move"]
    assert (c.n_memories, c.n_unanchored) == (4, 1)
    assert [m["memory_id"] for m in c.unanchored] == ["m-invented"]
    assert c.n_update_points == 1
    kinds = {k.kind: (k.n_facts, k.n_points, k.n_remembered, k.n_memories) for k in c.per_kind}
    assert kinds == {"household": (1, 1, 1, 1), "medication": (3, 3, 3, 2), "plans": (2, 1, 0, 0)}
    assert (c.turns.n_turns, c.turns.n_user_turns, c.turns.turns_with_memories, c.turns.max_per_turn) == (7, 4, 4, 1)
    assert c.turns.mean_per_user_turn == pytest.approx(0.75)  # t1, t3, t7 one each; t5 none


def test_memory_judges_match_hand_computed_scores_with_all_and_valid_denominators(
    mq_store: EventStore, tmp_path: Path
) -> None:
    script = MemoryQualityScript(invalid_when=(INVALID_MARKER,))
    prompts = PromptSet()
    with FakeOpenAI(script) as fake:
        roles = judge_roles(fake, tmp_path)
        try:
            outcome = run_memory_judges(
                mq_store, SYSTEM, [PROFILE], parse_memory_judges("all"), roles.client("judge"), prompts, concurrency=2
            )
        finally:
            roles.close()
    # the profile has no questions: the qa judge (tests/agents/memory_quality/test_qa_axis.py) has no target here
    assert outcome.targets == {"memory_integrity": 5, "memory_accuracy": 4, "memory_update": 1, "memory_qa": 0}
    assert outcome.invalid == {"memory_integrity": 1, "memory_accuracy": 0, "memory_update": 0, "memory_qa": 0}
    assert sum(outcome.failed.values()) == 0
    data = build_memory_quality_data(
        mq_store.driver, mq_store.database, SYSTEM, "mqtest", [PROFILE], judged=outcome.as_dict(), notes=[]
    )
    tables = {t["axis"]: t for t in data["systems"][0]["tables"]}

    # integrity: knee 2, dose-old invalid, cat 2, move 0 (never remembered), dose-new 2
    integrity = row(tables["integrity"], "all")
    assert (integrity["n_all"], integrity["n_valid"], integrity["n_invalid"]) == (5, 4, 1)
    assert integrity["counts"] == {"0": 1, "1": 0, "2": 3}
    assert integrity["score_all"] == pytest.approx(6 / 2 / 5)  # the invalid reply counts as 0 over "all"
    assert integrity["score_valid"] == pytest.approx(6 / 2 / 4)
    assert integrity["full_all"] == pytest.approx(3 / 5) and integrity["full_valid"] == pytest.approx(3 / 4)
    medication = row(tables["integrity"], "medication")
    assert (medication["n_all"], medication["n_valid"]) == (3, 2)
    assert medication["score_all"] == pytest.approx(4 / 2 / 3) and medication["score_valid"] == pytest.approx(1.0)
    assert row(tables["integrity"], "plans")["score_all"] == 0.0

    # accuracy: knee, cat, dose 2 and in gold; the invented memory 0 and not in gold
    accuracy = row(tables["accuracy"], "all")
    assert (accuracy["n_all"], accuracy["n_valid"], accuracy["counts"]) == (4, 4, {"0": 1, "1": 0, "2": 3})
    assert accuracy["score_all"] == pytest.approx(0.75) and accuracy["in_gold_all"] == pytest.approx(0.75)
    assert row(tables["accuracy"], "(no disclosing turn)")["score_all"] == 0.0
    assert row(tables["accuracy"], "medication")["n_all"] == 2

    update = row(tables["update"], "all")
    assert (update["n_all"], update["counts"]["correct"], update["rates_all"]["correct"]) == (1, 1, 1.0)

    # every verdict is an event tied to what it judged (and what it cites) in the graph
    with mq_store.driver.session() as session:
        links = {
            (r["axis"], r["target"])
            for r in session.run("MATCH (j:MemoryJudgment)-[:JUDGES]->(x) RETURN j.axis AS axis, x.id AS target")
        }
        cited = session.run(
            "MATCH (j:MemoryJudgment {axis: 'integrity', fact_id: 'f-knee'})-[:CITES]->(m:Memory) RETURN m.id AS id"
        ).value()
    assert (
        ("integrity", "f-move") in links and ("accuracy", "m-invented") in links and ("update", "f-dose-new") in links
    )
    assert len(links) == 10
    assert cited == ["m-knee"]

    # the reason is gold: redacted from event payloads and report data without the token
    found: list[str] = []
    event = next(e for e in mq_store.read() if e.type == "MemoryJudged")
    hidden = redact_event("MemoryJudged", event.payload, found)
    # the judge's details are gold whole (by the record), like its reason
    assert hidden["reason"] is None and "reason" in found and hidden["details"] in (None, {})
    found = []
    redacted = redact_gold(data, found)
    assert all(r["reason"] is None for r in redacted["systems"][0]["memory_judgments"])
    assert sum(1 for path in found if path.endswith(".reason")) == 10

    page = Path(write_report(data, tmp_path / "report"))
    assert "Integrity (0/1/2 per expected memory point)" in page.read_text("utf-8")
    assert json.loads((tmp_path / "report" / "report.json").read_text("utf-8"))["kind"] == "memory_quality"


def test_an_invalid_reply_lowers_valid_but_not_all_and_resume_asks_nothing_again(
    mq_store: EventStore, tmp_path: Path
) -> None:
    judges = parse_memory_judges("integrity")
    counts = []
    for markers in ((), (INVALID_MARKER,)):
        script = MemoryQualityScript(invalid_when=markers)
        with FakeOpenAI(script) as fake:
            roles = judge_roles(fake, tmp_path)
            try:
                # another judge model: a fresh set of verdicts, so both runs are judged in full
                roles.settings["judge"] = roles.settings["judge"].model_copy(update={"model": f"fake-{len(markers)}"})
                run_memory_judges(mq_store, SYSTEM, [PROFILE], judges, roles.client("judge"), PromptSet())
                again = run_memory_judges(mq_store, SYSTEM, [PROFILE], judges, roles.client("judge"), PromptSet())
            finally:
                roles.close()
        assert again.skipped == {"memory_integrity": 5} and sum(again.judged.values()) == 0  # resumed: nothing asked
        data = build_memory_quality_data(
            mq_store.driver, mq_store.database, SYSTEM, "mqtest", [PROFILE], judged={}, notes=[]
        )
        counts.append(row(data["systems"][0]["tables"][0], "all"))
    clean, with_invalid = counts
    assert (clean["n_all"], clean["n_valid"]) == (5, 5)
    assert (with_invalid["n_all"], with_invalid["n_valid"]) == (5, 4)  # "valid" drops, "all" does not
    assert clean["score_all"] == pytest.approx(7 / 2 / 5)  # f-dose-old scores 1 when its reply is valid
    assert with_invalid["score_all"] == pytest.approx(6 / 2 / 5)


def test_memory_judges_share_the_registry_without_joining_run_judges() -> None:
    assert list(MEMORY_JUDGES) == ["memory_integrity", "memory_accuracy", "memory_update", "memory_qa"]
    assert "memory_integrity" not in JUDGES and "memory_integrity" not in parse_judges("all")
    assert {"judge_memory_integrity", "judge_memory_accuracy", "judge_memory_update"} <= set(builtin_prompts())
    assert [j.name for j in parse_memory_judges("accuracy,memory_integrity")] == ["memory_integrity", "memory_accuracy"]


def _cli(args: list[str], tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLABENCH_LLM_")}
    config = tmp_path / "empty.toml"
    config.write_text("")
    env.update(
        PYTHONPATH=str(REPO),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        COLABENCH_CONFIG=str(config),
        COLABENCH_DATA_DIR=str(tmp_path / "data"),
        **extra,
    )
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=240
    )


def test_eval_memory_without_llm_prints_the_no_llm_part_and_says_the_judged_part_needs_one(
    mq_store: EventStore, tmp_path: Path
) -> None:
    done = _cli(["eval", "memory", "--system", SYSTEM, "--dataset", "mqtest"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "no-LLM coverage" in done.stdout and "80.0%" in done.stdout
    assert "needs an LLM" in done.stderr + done.stdout
    data = json.loads((tmp_path / "data" / "reports" / f"memory-{SYSTEM}-mqtest" / "report.json").read_text())
    assert data["judged"] is None and data["systems"][0]["tables"] == []


def test_eval_memory_with_a_judge_endpoint_writes_the_judged_tables(mq_store: EventStore, tmp_path: Path) -> None:
    with FakeOpenAI(MemoryQualityScript()) as fake:
        done = _cli(
            ["eval", "memory", "--system", SYSTEM, "--dataset", "mqtest", "--judges", "integrity,accuracy"],
            tmp_path,
            COLABENCH_LLM_JUDGE_BASE_URL=fake.base_url,
            COLABENCH_LLM_JUDGE_MODEL="fake-judge",
            COLABENCH_LLM_CACHE_MODE="off",
        )
    assert done.returncode == 0, done.stderr
    assert "memory judges: 9/9" in done.stderr  # plain progress lines (stderr is not a terminal)
    data = json.loads((tmp_path / "data" / "reports" / f"memory-{SYSTEM}-mqtest" / "report.json").read_text())
    assert [t["axis"] for t in data["systems"][0]["tables"]] == ["integrity", "accuracy"]
    assert data["judged"]["judged"] == {"memory_integrity": 5, "memory_accuracy": 4}
