"""`eval qa --prompt NAME=PATH[@SHA256]`: a reader or judge prompt file replaces the built-in one for the run,
its record (name, sha256, source) is in the QaRunStarted record and its hash on every answer / verdict that
used it; a file whose SHA-256 differs from the one given is refused before any LLM call, with both hashes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from neo4j import Driver
from typer.testing import CliRunner

from agents.prompts.qa_judging import JUDGE_QA_UPDATE
from agents.prompts.qa_reading import QA_READER_DIRECT
from agents.prompts.registry import PromptSet
from agents.qa.feeds import make_feed_config
from agents.qa.runner import run_qa
from graph.hashing import text_sha256
from graph.store import EventStore
from tests.agents.qa.test_eval_qa import ORACLE_FILE, SCRIPTED, _roles
from tests.conftest import emptied_store
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.qa_script import QaScript

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]


@pytest.fixture(scope="module")
def store(driver: Driver, encoder) -> EventStore:  # type: ignore[no-untyped-def]
    return emptied_store(driver, encoder)  # type: ignore[no-any-return]


def _prompt_file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.txt"
    path.write_text(text + "\nBe brief.\n", "utf-8")  # same placeholders, other wording
    return path


def test_reader_and_judge_prompt_files_are_used_and_recorded_in_the_run(store: EventStore, tmp_path: Path) -> None:
    reader = _prompt_file(tmp_path, "reader", QA_READER_DIRECT.text)
    judge = _prompt_file(tmp_path, "judge", JUDGE_QA_UPDATE.text)
    reader_sha = text_sha256(reader.read_text("utf-8"))
    prompts = PromptSet.from_config(
        [f"qa_reader_direct={reader}@{reader_sha}", f"judge_lme_qa_knowledge_update={judge}"]
    )
    with FakeOpenAI(QaScript(answers=dict(SCRIPTED))) as server:
        roles = _roles(server.base_url)
        try:
            outcome = run_qa(
                store,
                ORACLE_FILE,
                make_feed_config("oracle", "RAW_TURNS", 3, "round", "none", False),
                reader="direct",
                reader_llm=roles.client("answerer"),
                judge_llm=roles.client("judge"),
                say=lambda _: None,
                prompts=prompts,
            )
        finally:
            roles.close()
    started = next(e for e in store.read() if e.type == "QaRunStarted" and e.payload["qa_run_id"] == outcome.qa_run_id)
    records = started.payload["config"]["prompts"]
    assert records["qa_reader_direct"]["source"] == str(reader) and records["qa_reader_direct"]["sha256"] == reader_sha
    assert records["judge_lme_qa_knowledge_update"]["sha256"] == prompts["judge_lme_qa_knowledge_update"].sha256
    assert records["judge_lme_qa_default"]["source"] == "builtin"
    assert started.payload["prompt_hashes"]["qa_reader_direct"] == reader_sha
    with store.driver.session() as session:
        answer_shas = set(
            session.run("MATCH (a:QaAnswer {qa_run_id: $id}) RETURN a.prompt_sha256", id=outcome.qa_run_id).value()
        )
        judge_shas = {
            r["rule"]: r["sha"]
            for r in session.run(
                "MATCH (j:QaJudgment {qa_run_id: $id}) RETURN j.rule AS rule, j.prompt_sha256 AS sha",
                id=outcome.qa_run_id,
            )
        }
    assert answer_shas == {reader_sha}
    assert judge_shas["knowledge_update"] == prompts["judge_lme_qa_knowledge_update"].sha256
    assert judge_shas["default"] == PromptSet()["judge_lme_qa_default"].sha256


def test_a_prompt_file_whose_hash_differs_is_refused_with_both_hashes(store: EventStore, tmp_path: Path) -> None:
    from cli import app

    reader = _prompt_file(tmp_path, "reader", QA_READER_DIRECT.text)
    wrong = "0" * 64
    done = CliRunner().invoke(
        app, ["eval", "qa", "--path", str(ORACLE_FILE), "--prompt", f"qa_reader_direct={reader}@{wrong}"]
    )
    assert done.exit_code == 1, done.output
    assert text_sha256(reader.read_text("utf-8")) in done.output and wrong in done.output
    assert "Traceback" not in done.output
    assert not any(e.type == "QaRunStarted" and json.dumps(e.payload).count(wrong) for e in store.read())
