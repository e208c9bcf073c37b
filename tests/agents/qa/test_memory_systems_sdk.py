"""`eval qa --system` end to end for the SDK-built systems, Mem0, Graphiti and LangMem, on the LoCoMo slice
(tests/fixtures/locomo/locomo_mini.json: 2 conversations, 8 questions, categories 1-5) against the fake OpenAI
server: the test endpoint's AutoPolicy plays Mem0's extraction and every Graphiti prompt, the LangMem script
LangMem's extraction (the memory role), the scripted answerer and binary judge the rest. Every question is answered
and judged once per judge run, the memories fed are the system's own, traced to the turns of the question's
conversation, and each answer was given from exactly the memories recorded as fed. Before each run, its dry run
(`--dry-run`) sends nothing, writes nothing, plans the same run id and counts the answers, verdicts and pairs to
build that the run then makes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from agents.llm.roles import LLMRoles
from agents.qa.memory_systems import MemoryQaOutcome, resolve_k, run_memory_qa
from graph.store import EventStore
from tests.conftest import emptied_store
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.langmem_script import LangmemScript
from tests.fake_openai.memory_systems_qa_script import MemorySystemsQaScript
from tests.fake_openai.policy import AutoPolicy
from tests.paths import FIXTURES

pytestmark = [pytest.mark.neo4j, pytest.mark.slow, pytest.mark.usefixtures("isolated_config")]

LOCOMO = FIXTURES / "locomo" / "locomo_mini.json"
N_QUESTIONS = 8
JUDGE_RUNS = 2
SYSTEMS = ("mem0", "graphiti", "langmem")


def _script(system: str) -> MemorySystemsQaScript:
    """The endpoint's script: answerer and judge, then the system's build requests (LangMem's extraction has a
    script of its own: one memory per user message of the pair; AutoPolicy plays Mem0's and Graphiti's)."""
    build: Any = LangmemScript(fallback=AutoPolicy()) if system == "langmem" else AutoPolicy()
    return MemorySystemsQaScript(fallback=build)


@pytest.fixture(scope="module")
def store(driver: Driver, encoder: Any) -> EventStore:
    return emptied_store(driver, encoder)  # type: ignore[no-any-return]


def _roles(server: FakeOpenAI, cache: Path) -> LLMRoles:
    settings = {"base_url": server.base_url, "model": "fake-model", "max_retries": 0, "retry_base_s": 0.0,
                "timeout_s": 30.0}
    return LLMRoles(
        overrides={"answerer": settings, "judge": settings, "memory": settings},
        cache_path=cache / "llm.sqlite",
        exchanges_path=cache / "exchanges.sqlite",
    )


def _run(store: EventStore, system: str, cache: Path) -> tuple[MemoryQaOutcome, MemorySystemsQaScript, int]:
    script = _script(system)
    with FakeOpenAI(script) as server:
        roles = _roles(server, cache)
        try:
            outcome = run_memory_qa(
                store,
                LOCOMO,
                dataset="locomo",
                system=system,
                answer_llm=roles.client("answerer"),
                judge_llms=[roles.repeat_client("judge", n) for n in range(1, JUDGE_RUNS + 1)],
                memory_llm=roles.client("memory"),
                judge_runs=JUDGE_RUNS,
                say=lambda _: None,
            )
        finally:
            roles.close()
        return outcome, script, len(server.requests)


def _dry_run(store: EventStore, system: str, folder: Path) -> tuple[dict[str, Any], int, int]:
    """`eval qa --system S --dry-run` on the command line: (its estimate, requests the endpoint got, events
    appended meanwhile)."""
    from typer.testing import CliRunner

    from cli import app

    empty = folder / "empty.toml"
    empty.write_text("")
    out = folder / f"dry-{system}.json"
    with FakeOpenAI(_script(system)) as server, pytest.MonkeyPatch.context() as env:
        for name, value in {
            "COLABENCH_CONFIG": str(empty), "COLABENCH_DATA_DIR": str(folder / "data"),
            "COLABENCH_LLM_CACHE": str(folder / "dry.sqlite"), "COLABENCH_LLM_BASE_URL": server.base_url,
            "COLABENCH_LLM_MODEL": "fake-model",
        }.items():
            env.setenv(name, value)
        head = store.head().seq
        done = CliRunner().invoke(
            app,
            ["eval", "qa", "--dataset", "locomo", "--path", str(LOCOMO), "--system", system,
             "--judge-runs", str(JUDGE_RUNS), "--dry-run", "--out", str(out)],
        )  # fmt: skip
        assert done.exit_code == 0, done.output
        assert "nothing sent to any endpoint" in " ".join(done.output.split())
        return json.loads(out.read_text()), len(server.requests) + server.check_requests, store.head().seq - head


class _Runs(dict[str, Any]):
    """Per system, made on first use (so `-k langmem` builds LangMem's memory only): its dry run, then the
    run itself."""

    def __init__(self, store: EventStore, factory: pytest.TempPathFactory) -> None:
        super().__init__()
        self.store, self.factory = store, factory
        self.cache = factory.mktemp("sdk-qa")

    def __missing__(self, system: str) -> Any:
        dry = _dry_run(self.store, system, self.factory.mktemp(f"dry-{system}"))
        self[system] = (*_run(self.store, system, self.cache), dry)
        return self[system]


@pytest.fixture(scope="module")
def runs(store: EventStore, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The dataset ingested; each system's dry run and run on first use."""
    from ingest.pipeline import load_input, write_events

    write_events(store, load_input(LOCOMO, "locomo"))
    return _Runs(store, tmp_path_factory)


def _rows(store: EventStore, query: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [dict(r) for r in session.run(query, **params)]


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_question_is_answered_and_judged_once_per_run(runs: dict[str, Any], system: str) -> None:
    outcome, script, _, _ = runs[system]
    assert outcome.answered_now == N_QUESTIONS and outcome.judged_now == N_QUESTIONS * JUDGE_RUNS
    assert len(script.answer_calls) == N_QUESTIONS
    summary = outcome.summary
    assert summary.n_answered == N_QUESTIONS and summary.runs_complete == JUDGE_RUNS
    assert summary.overall.n + summary.adversarial.n == N_QUESTIONS
    assert len(summary.overall.j_runs) == JUDGE_RUNS and summary.overall.f1 is not None
    assert outcome.config["k"] == resolve_k(system, None)[0]
    # the memory was built by the SDK through the memory role, and its cost is counted from the graph
    assert outcome.build["pairs_built_now"] > 0 and summary.build["llm_calls"] > 0
    assert summary.build["live_memories"] > 0


@pytest.mark.parametrize("system", SYSTEMS)
def test_fed_memories_are_the_systems_own_traced_to_the_questions_turns(
    store: EventStore, runs: dict[str, Any], system: str
) -> None:
    outcome, script, _, _ = runs[system]
    answers = _rows(
        store,
        "MATCH (a:QaAnswer {qa_run_id: $id})-[:ANSWERS]->(i:Item) "
        "OPTIONAL MATCH (a)-[f:FED_MEMORY]->(m:Memory) "
        "OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn) "
        "WITH a, i, f, m, collect(DISTINCT t.profile_id) AS turn_profiles, count(t) AS n_turns "
        "ORDER BY f.rank "
        "RETURN i.question AS question, i.profile_id AS profile, a.fed_unit_ids AS fed, "
        "collect(m.id) AS memories, collect(DISTINCT m.system) AS systems, collect(m.text) AS texts, "
        "collect(n_turns) AS turns_per_memory, collect(turn_profiles) AS turn_profiles",
        id=outcome.qa_run_id,
    )
    assert len(answers) == N_QUESTIONS
    seen = dict(script.answer_calls)
    fed_profiles = set()
    for a in answers:
        assert a["memories"] == a["fed"]  # every fed id is a Memory node, in the order fed
        if a["fed"]:
            fed_profiles.add(a["profile"])
        if a["fed"]:
            assert a["systems"] == [system]
            assert all(n > 0 for n in a["turns_per_memory"])  # each memory derived from turns...
            assert all(p == [a["profile"]] for p in a["turn_profiles"])  # ...of the question's conversation
        # the answerer saw exactly these memories, best first (one dated line each)
        shown = [line.split("] ", 1)[1] if line.startswith("[") else line for line in seen[a["question"]]]
        assert shown == [" ".join(t.split()) for t in a["texts"]]
    # every conversation's memory was searched and fed (a search may find nothing for one question: Graphiti's
    # hybrid search keeps no fact under its similarity floor; that answer was then given from no memory, above)
    assert fed_profiles == {a["profile"] for a in answers}


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_dry_run_sends_and_writes_nothing_and_counts_what_the_run_then_sends(
    runs: dict[str, Any], system: str
) -> None:
    outcome, script, _, (estimate, dry_requests, dry_events) = runs[system]
    assert dry_requests == 0 and dry_events == 0
    assert estimate["batch_id"] == outcome.qa_run_id  # it planned the very run that followed
    by_role = {r["role"]: r for r in estimate["roles"]}
    # exact: one answer per question, one verdict per question and judge run
    assert estimate["to_answer"] == by_role["answerer"]["calls_min"] == outcome.answered_now == len(script.answer_calls)
    assert by_role["judge"]["calls_min"] == outcome.judged_now == N_QUESTIONS * JUDGE_RUNS
    assert by_role["answerer"]["tokens_in"] > 0 and by_role["judge"]["tokens_in"] > 0
    # the memory build: no earlier build of the system to measure, so at least one call per pair to build
    memory = by_role["memory"]
    assert memory["calls_min"] == outcome.build["pairs_built_now"] > 0 and memory["calls_max"] is None
    assert outcome.build["llm_calls_now"] >= memory["calls_min"]
    # the memory was not built yet: the answer prompts were counted without memories, and the note says so
    assert any("hold no" in note for note in estimate["notes"])


def test_a_rerun_sends_nothing(store: EventStore, runs: dict[str, Any], tmp_path: Path) -> None:
    assert runs["mem0"]  # the run this one repeats (made here if no earlier test made it)
    outcome, _, _ = _run(store, "mem0", tmp_path)
    assert (outcome.answered_now, outcome.judged_now, outcome.skipped_done) == (0, 0, N_QUESTIONS)
    assert outcome.build["pairs_built_now"] == 0


def _pair(started_at: str | None) -> Any:
    from agents.history import HistoryTurn
    from agents.memory.pairs import HistoryPair

    turn = HistoryTurn(session_id="s", session_ordinal=0, started_at=started_at, turn_id="t", ordinal=0,
                       role="user", speaker=None, text="hi", at=None, tool_calls=[])
    return HistoryPair("t", "s", 0, (turn,))


def test_graphiti_reads_a_locomo_session_date_as_the_episode_time() -> None:
    from datetime import UTC, datetime

    from agents.memory.errors import MemoryBackendError
    from agents.memory.graphiti.ids import reference_time

    assert reference_time(_pair("1:56 pm on 8 May, 2023")) == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert reference_time(_pair("2024-01-02T03:04:05Z")) == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    with pytest.raises(MemoryBackendError, match="neither ISO 8601 nor a LoCoMo session date"):
        reference_time(_pair("sometime last spring"))


def test_langmem_answers_from_the_memory_of_the_turn_that_said_it_and_scores_it(
    store: EventStore, runs: dict[str, Any]
) -> None:
    """The LangMem script keeps each user message verbatim, so the answer to "What does Caroline want to study?"
    is the memory of turn D1:3, fed first, traced to that turn's pair, and its scores can be worked out by hand."""
    from agents.qa.locomo_scores import bleu1_score

    outcome, _, _, _ = runs["langmem"]
    row = next(r for r in outcome.summary.rows if r.question == "What does Caroline want to study?")
    said = "Lovely. I want to study counseling."
    assert row.answer == said and row.memory_ids and row.memory_ids[0].startswith("langmem:")
    written = _rows(
        store,
        "MATCH (m:Memory {id: $id})-[:DERIVED_FROM]->(t:Turn) WITH m, collect(t.id) AS turns "
        "MATCH (e:Event {type: 'MemoryWritten'}) WHERE e.payload CONTAINS $id RETURN m.text AS text, turns, "
        "e.payload AS payload ORDER BY e.seq",
        id=row.memory_ids[0],
    )
    assert [r["text"] for r in written] == [said]
    event = json.loads(written[0]["payload"])
    assert event["op"] == "ADD" and "locomo:conv-1:D1:3" in event["source_turn_ids"]
    assert sorted(written[0]["turns"]) == sorted(event["source_turn_ids"])
    # the pair LangMem took in when it wrote the memory is the one these turns make up
    pairs = _rows(
        store,
        "MATCH (e:Event {type: 'MemoryPairProcessed'}) WHERE e.payload CONTAINS $pair RETURN e.payload AS p",
        pair=event["metadata"]["pair_id"],
    )
    # the pair id names the turns, so the other systems built in this module took in the same pair
    processed = [p for p in (json.loads(r["p"]) for r in pairs) if p["system"] == "langmem"]
    assert [(p["system"], p["turn_ids"]) for p in processed] == [("langmem", event["source_turn_ids"])]
    assert row.memory_ids[0] in processed[0]["memory_ids"]
    # J, F1 and BLEU-1 of its category (1: only this question): "counseling" is 1 of the answer's 6 token types
    single_hop = next(c for c in outcome.summary.categories if c.category == "1")
    assert single_hop.n == 1 and single_hop.j_runs == [1.0] * JUDGE_RUNS
    assert single_hop.f1 == pytest.approx(2 / 7)
    assert single_hop.bleu1 == pytest.approx(bleu1_score(said, "counseling")) and 0 < single_hop.bleu1 < 1
