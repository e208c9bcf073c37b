"""Every LLM exchange kept: requests and replies are stored content-addressed (shared prompt parts once), the
client hands back the exchange hash (the same for a cached reply), invalid structured replies keep theirs,
the events of a run reference exchanges that show the exact request, `llm show` prints one and asks for the
token for judge requests, an unknown hash is one clear line, and the store exports and imports verified."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict
from typer.testing import CliRunner

from agents.llm.accounting import UsageLedger
from agents.llm.client import LLMClient
from agents.llm.errors import LLMOutputError
from agents.llm.exchanges import ExchangeImportError, ExchangeNotFoundError, ExchangeStore
from agents.llm.roles import LLMRoles
from agents.llm.settings import load_role_settings
from graph.events import AnswerGiven, MemoryWritten, parse_event
from graph.hashing import content_event_id
from tests.fake_openai import FakeOpenAI, Reply

pytestmark = pytest.mark.usefixtures("isolated_config")

TOKEN = "exchange-test-token-0123456789abcdef"
SYSTEM = {"role": "system", "content": "You answer questions about a knowledge base. " * 40}


def request(question: str, **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [SYSTEM, {"role": "user", "content": question}], "temperature": 0.0, **extra}


def reply(text: str) -> dict[str, Any]:
    return {"content": text, "tool_calls": [], "finish_reason": "stop", "tokens_in": 3, "tokens_out": 1, "model": "m"}


def test_shared_prompt_parts_are_stored_once_and_the_request_comes_back_whole(tmp_path: Path) -> None:
    store = ExchangeStore(tmp_path / "x.sqlite")
    tools = [{"type": "function", "function": {"name": "kb_search", "parameters": {"type": "object"}}}]
    first = store.put(role="answerer", request=request("one?", tools=tools, tool_choice="auto"), reply=reply("a"))
    second = store.put(role="answerer", request=request("two?", tools=tools, tool_choice="auto"), reply=reply("b"))
    again = store.put(role="answerer", request=request("one?", tools=tools, tool_choice="auto"), reply=reply("a"))
    counts = store.stored_bytes()
    # system message + tool list shared; one user message each
    assert counts["parts"] == 4 and counts["exchanges"] == 2
    assert first == again != second
    shown = store.show(first)
    assert shown["request"] == request("one?", tools=tools, tool_choice="auto")
    assert shown["reply"] == reply("a") and shown["role"] == "answerer"
    # compressed: the long system prompt costs far less than its text
    assert counts["part_bytes"] < len(json.dumps(SYSTEM))
    store.close()


def test_the_same_request_with_another_reply_is_another_exchange(tmp_path: Path) -> None:
    store = ExchangeStore(tmp_path / "x.sqlite")
    assert store.put(role="judge", request=request("q"), reply=reply("pass")) != store.put(
        role="judge", request=request("q"), reply=reply("fail")
    )


def client_of(fake: FakeOpenAI, tmp_path: Path, *, cache: bool = True) -> tuple[LLMClient, ExchangeStore]:
    from agents.llm.cache import ResponseCache

    settings = load_role_settings(
        "judge", base_url=fake.base_url, model="fake", retry_base_s=0.0, invalid_output_retries=1
    )
    store = ExchangeStore(tmp_path / "exchanges.sqlite")
    client = LLMClient(
        settings,
        cache=ResponseCache(tmp_path / "cache.sqlite") if cache else None,
        ledger=UsageLedger(),
        exchanges=store,
    )
    return client, store


def test_a_cached_reply_names_the_same_exchange(tmp_path: Path) -> None:
    with FakeOpenAI(lambda body: Reply.text("ready")) as fake:
        client, store = client_of(fake, tmp_path)
        sent = client.chat([{"role": "user", "content": "ping"}])
        hit = client.chat([{"role": "user", "content": "ping"}])
        assert fake.request_count == 1
    assert hit.cached and sent.exchange is not None and hit.exchange == sent.exchange
    assert store.show(sent.exchange)["reply"]["content"] == "ready"


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    verdict: str


def test_an_invalid_structured_reply_keeps_its_exchange_with_every_try(tmp_path: Path) -> None:
    with FakeOpenAI(lambda body: Reply.text("not json")) as fake:
        client, store = client_of(fake, tmp_path, cache=False)
        with pytest.raises(LLMOutputError) as caught:
            client.structured([{"role": "user", "content": "judge this"}], Verdict, name="verdict")
    assert caught.value.exchange is not None
    messages = store.show(caught.value.exchange)["request"]["messages"]
    # the last request holds the first try and the repair message that answered it
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == "not json"


def test_an_exchange_changes_neither_an_events_payload_when_absent_nor_its_identity() -> None:
    old = {"system": "raw_turns", "memory_id": "m1", "profile_id": "p1", "op": "ADD", "text": "t",
           "source_turn_ids": ["t1"], "metadata": {}}
    event = parse_event("MemoryWritten", old)
    assert event.payload() == old and event.event_id() == content_event_id("MemoryWritten", old)
    with_exchange = MemoryWritten(**old, exchange="a" * 64)
    # the same fact reached through another request is the same event (re-appending it is a no-op)
    assert with_exchange.payload()["exchange"] == "a" * 64 and with_exchange.event_id() == event.event_id()


def test_export_and_import_carry_the_store_and_refuse_a_tampered_row(tmp_path: Path) -> None:
    source = ExchangeStore(tmp_path / "a.sqlite")
    key = source.put(role="answerer", request=request("q"), reply=reply("r"))
    rows = list(source.rows())
    target = ExchangeStore(tmp_path / "b.sqlite")
    tampered = [dict(r) for r in rows]
    tampered[-1]["sha256"] = "0" * 64
    with pytest.raises(ExchangeImportError, match="row 3: field sha256"):
        target.add_rows(tampered, "x.jsonl")
    assert target.stored_bytes()["exchanges"] == 0 and target.stored_bytes()["parts"] == 0
    assert target.add_rows(rows, "x.jsonl") == 3
    assert target.show(key) == source.show(key)


# --- `llm show` -----------------------------------------------------------------------------------------


def invoke(*args: str, **env: str) -> Any:
    from cli import app

    return CliRunner().invoke(app, ["llm", "show", *args], env=env)


def test_llm_show_prints_an_answerer_exchange_and_gates_a_judge_one(tmp_path: Path) -> None:
    path = tmp_path / "data" / "llm_exchanges.sqlite"
    store = ExchangeStore(path)
    answerer = store.put(role="answerer", request=request("what?"), reply=reply("this"))
    judge = store.put(role="judge", request=request("reference answer: GOLD-42"), reply=reply("pass"))
    store.close()

    shown = invoke(answerer)
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["request"]["messages"][1]["content"] == "what?"

    hidden = invoke(judge)
    assert hidden.exit_code != 0 and "GOLD-42" not in hidden.output
    assert "API token" in hidden.output
    wrong = invoke(judge, "--token", "not-the-token", COLABENCH_API_TOKEN=TOKEN)
    assert wrong.exit_code != 0 and "GOLD-42" not in wrong.output
    opened = invoke(judge, "--token", TOKEN, COLABENCH_API_TOKEN=TOKEN)
    assert opened.exit_code == 0, opened.output
    assert "GOLD-42" in opened.output


def test_llm_show_of_an_unknown_hash_is_one_clear_line(tmp_path: Path) -> None:
    store = ExchangeStore(tmp_path / "data" / "llm_exchanges.sqlite")
    store.put(role="answerer", request=request("q"), reply=reply("r"))
    missing = invoke("f" * 64)
    assert missing.exit_code != 0
    assert missing.exit_code == 2, "an unknown exchange is something the command line named that is not there"
    assert f"no LLM exchange '{'f' * 64}'" in missing.output and len(missing.output.strip().splitlines()) == 1
    malformed = invoke("abc")
    assert malformed.exit_code != 0 and "not an exchange hash" in malformed.output
    assert malformed.exit_code == 2
    with pytest.raises(ExchangeNotFoundError):
        store.record("f" * 64)


def test_a_store_of_a_newer_format_is_one_clear_line_in_llm_show_and_no_path_in_the_api(
    tmp_path: Path, neo4j_settings: Any, driver: Any, encoder: Any
) -> None:
    import sqlite3

    from tests.api_support import api_client

    path = tmp_path / "data" / "llm_exchanges.sqlite"
    store = ExchangeStore(path)
    key = store.put(role="answerer", request=request("q"), reply=reply("r"))
    store.close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 4")
    shown = invoke(key)
    assert shown.exit_code == 1 and "Traceback" not in shown.output
    said = shown.output.replace("\n", "")  # one message (the console may wrap its long path)
    assert said.startswith("error: ") and "format version 4 is newer than the supported version 1" in said
    with api_client(neo4j_settings, driver, encoder, token=TOKEN) as client:
        served = client.get(f"/exchanges/{key}")
    assert served.status_code == 500
    assert "format version 4, newer than the supported version 1" in served.json()["detail"]
    assert str(tmp_path) not in served.text


# --- a run's events reference their exchanges ---------------------------------------------------------------


@pytest.mark.neo4j
def test_a_runs_answers_tool_calls_and_verdicts_reference_the_exact_request(
    mini_store: Any, mini_retriever: Any, tmp_path: Path, neo4j_settings: Any, driver: Any, encoder: Any
) -> None:
    from agents.methods import parse_methods
    from agents.prompts.registry import PromptSet
    from agents.runs.plan import RunOptions, plan_batch
    from agents.runs.runner import execute_batch
    from tests.fake_openai.policy import AutoPolicy

    exchanges = tmp_path / "data" / "llm_exchanges.sqlite"  # the data directory's store, which the API serves
    with FakeOpenAI(AutoPolicy()) as fake:
        base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0}
        roles = LLMRoles(
            overrides={role: dict(base) for role in ("answerer", "judge", "state")},
            cache_path=tmp_path / "cache.sqlite",
            exchanges_path=exchanges,
        )
        prompts = PromptSet()
        plan = plan_batch(
            mini_store, parse_methods("MEMKB_RAW_TURNS"), RunOptions(dataset="mini", judges=("accuracy",), items=1),
            roles, prompts, encoder_id=mini_store.encoder.encoder_id,
        )
        try:
            execute_batch(mini_store, mini_retriever, plan, roles, prompts, concurrency=1)
        finally:
            roles.close()
        sent = list(fake.requests)
    run_id = plan.runs[0].run_id
    with mini_store.driver.session() as session:
        rows = session.run(
            "MATCH (e:Event) WHERE e.type IN ['AnswerGiven', 'ToolCalled', 'AnswerJudged', 'StateSummarized'] "
            "RETURN e.type AS type, e.payload AS payload ORDER BY e.seq"
        ).data()
    events = [(r["type"], json.loads(r["payload"])) for r in rows]
    mine = [(t, p) for t, p in events if str(p.get("attempt_id", "")).startswith(run_id) or t == "StateSummarized"]
    assert {t for t, _ in mine} >= {"AnswerGiven", "ToolCalled", "AnswerJudged"}
    store = ExchangeStore(exchanges)
    bodies = [json.dumps(b, sort_keys=True) for b in sent]
    for event_type, payload in mine:
        shown = store.show(payload["exchange"])
        # the stored request is one the endpoint actually received
        request_body = {k: v for k, v in shown["request"].items() if k != "extra_body"}
        assert json.dumps(request_body, sort_keys=True) in bodies, event_type
        if event_type == "AnswerGiven":
            assert shown["role"] == "answerer"
            assert AnswerGiven.model_validate(payload).answer == (shown["reply"]["content"] or "").strip()
        if event_type == "ToolCalled":
            assert payload["tool"] in {c["name"] for c in shown["reply"]["tool_calls"]}
        if event_type == "AnswerJudged":
            assert shown["role"] == "judge"
    with mini_store.driver.session() as session:
        linked = session.run(
            "MATCH (a:Attempt)-[:JUDGED_BY]->(j:Judgment) WHERE a.id STARTS WITH $run "
            "RETURN a.answer_exchange AS answer, j.exchange AS verdict",
            run=run_id,
        ).data()
    assert linked and all(r["answer"] and r["verdict"] for r in linked)

    # the report links each answer, tool call and verdict to its exchange ...
    from agents.reports.data import build_report_data
    from agents.reports.html import render_html

    page = render_html(build_report_data(mini_store.driver, "neo4j", [run_id], resamples=50))
    for _, payload in mine:
        if "attempt_id" in payload:
            assert f'href="/exchange#{payload["exchange"]}"' in page
    # ... and the API serves it: the answerer's to anyone, the judge's (gold) only with the token
    from tests.api_support import TOKEN as API_TOKEN
    from tests.api_support import api_client

    answer = next(p["exchange"] for t, p in mine if t == "AnswerGiven")
    verdict = next(p["exchange"] for t, p in mine if t == "AnswerJudged")
    with api_client(neo4j_settings, driver, encoder, token=API_TOKEN) as client:
        assert client.get(f"/exchanges/{answer}").json()["role"] == "answerer"
        hidden = client.get(f"/exchanges/{verdict}")
        assert hidden.status_code == 403 and "reference" not in hidden.text.lower()
        shown = client.get(f"/exchanges/{verdict}", headers={"Authorization": f"Bearer {API_TOKEN}"})
        assert shown.status_code == 200 and shown.json()["role"] == "judge"
        assert client.get("/exchanges/" + "e" * 64).status_code == 404
        assert client.get("/exchanges/nothex").status_code == 400
        assert client.get("/exchange").status_code == 200


@pytest.mark.neo4j
def test_memory_writes_reference_the_exchange_of_their_pair(
    mini_store: Any, mini_retriever: Any, tmp_path: Path
) -> None:
    from agents.memory.prepare import prepare_memory
    from tests.fake_openai.mem0_script import Mem0Script

    exchanges = tmp_path / "exchanges.sqlite"
    with FakeOpenAI(Mem0Script()) as fake:
        settings = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0}
        roles = LLMRoles(overrides={"memory": settings}, cache_path=tmp_path / "c.sqlite", exchanges_path=exchanges)
        try:
            llm = roles.client("memory")
            report = prepare_memory("mem0", mini_store, mini_retriever, "mini-p-ravi", llm=llm, links=False)
        finally:
            roles.close()
    assert report.pairs_built > 0
    with mini_store.driver.session() as session:
        rows = session.run(
            "MATCH (e:Event) WHERE e.type IN ['MemoryWritten', 'MemoryPairProcessed'] "
            "AND e.payload CONTAINS '\"system\":\"mem0\"' AND e.payload CONTAINS 'mini-p-ravi' "
            "RETURN e.type AS type, e.payload AS payload"
        ).data()
    store = ExchangeStore(exchanges)
    writes = [json.loads(r["payload"]) for r in rows if r["type"] == "MemoryWritten"]
    steps = [json.loads(r["payload"]) for r in rows if r["type"] == "MemoryPairProcessed"]
    assert writes and len(steps) == report.pairs_built
    for step in steps:
        kept = step["details"]["exchanges"]
        assert kept and all(store.show(x)["role"] == "memory" for x in kept)
    for write in writes:
        shown = store.show(write["exchange"])
        assert shown["role"] == "memory"
        # the memory's text came out of the reply of that request (Mem0's extraction)
        assert write["text"] in json.dumps(shown["reply"], ensure_ascii=False)


def test_an_exported_store_imports_whole_and_a_bad_line_is_named_with_nothing_written(tmp_path: Path) -> None:
    from agents.llm.exchanges import exchanges_file, export_exchanges, import_exchanges

    source = ExchangeStore(tmp_path / "a.sqlite")
    key = source.put(role="answerer", request=request("q"), reply=reply("r"))
    path = exchanges_file(tmp_path / "log.jsonl")
    assert path.name == "log.jsonl.exchanges.jsonl" and export_exchanges(source, path) == 3
    broken = tmp_path / "broken.jsonl"
    broken.write_text(path.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    target = ExchangeStore(tmp_path / "b.sqlite")
    with pytest.raises(ExchangeImportError, match=r"broken\.jsonl:5: not a JSON object"):
        import_exchanges(target, broken)
    assert target.stored_bytes()["exchanges"] == 0
    assert import_exchanges(target, path) == 3 and import_exchanges(target, path) == 0
    assert target.show(key) == source.show(key)


def test_events_import_with_a_bad_exchanges_file_beside_it_is_bad_input_and_imports_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 2 (bad input: file and line named), not 3 (an endpoint failure): the exchanges are checked before
    the database is opened, so no Neo4j is needed."""
    from agents.llm.exchanges import exchanges_file, export_exchanges
    from cli import app

    target = tmp_path / "data" / "llm_exchanges.sqlite"
    monkeypatch.setenv("COLABENCH_LLM_EXCHANGES", str(target))
    log = tmp_path / "log.jsonl"
    log.write_text("", encoding="utf-8")
    source = ExchangeStore(tmp_path / "a.sqlite")
    source.put(role="answerer", request=request("q"), reply=reply("r"))
    beside = exchanges_file(log)
    export_exchanges(source, beside)
    beside.write_text(beside.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    done = CliRunner().invoke(app, ["events", "import", str(log)])
    assert done.exit_code == 2, done.output
    said = done.output.replace("\n", "")
    assert "log.jsonl.exchanges.jsonl:5" in said and "Traceback" not in done.output
    assert ExchangeStore(target).stored_bytes()["exchanges"] == 0
