"""The LLM layer against the fake OpenAI-compatible server: settings precedence, the response cache, retries
on 429/500/timeouts/malformed bodies, structured output (json_schema and json_object modes) with repair, and
prompt templates with pinned hashes. No Neo4j needed."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from agents.llm.accounting import UsageLedger
from agents.llm.cache import ResponseCache
from agents.llm.client import LLMClient, is_strict_compatible
from agents.llm.errors import LLMConfigError, LLMOutputError, LLMUnavailableError
from agents.llm.settings import load_role_settings
from agents.prompts.registry import PromptSet, builtin_prompts
from agents.prompts.template import PromptError, load_prompt_file, render_messages
from tests.fake_openai import FakeOpenAI, Fault, Reply

SECRET = "sk-test-very-secret-0123456789"


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    verdict: str
    rationale: str


def _responder(body: dict) -> Reply:
    if body.get("response_format"):
        return Reply.json({"verdict": "pass", "rationale": "fine"})
    if body.get("tools"):
        return Reply.tools(("kb_search", {"query": "respite grants"}))
    return Reply.text(f"echo {len(body['messages'])}")


@pytest.fixture(autouse=True)
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Isolate the tests from a colabench.toml a developer may keep in the checkout."""
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    monkeypatch.setenv("COLABENCH_CONFIG", str(empty))


@pytest.fixture()
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(_responder) as server:
        yield server


def _client(fake: FakeOpenAI, tmp_path: Path, **overrides: object) -> tuple[LLMClient, UsageLedger]:
    settings = load_role_settings(
        "judge",
        base_url=fake.base_url,
        model="fake-judge",
        api_key=SECRET,
        retry_base_s=0.0,
        timeout_s=5.0,  # generous: only a timeout fault (30 s) exceeds it, whatever the load
        **overrides,
    )
    ledger = UsageLedger()
    return LLMClient(settings, cache=ResponseCache(tmp_path / "cache.sqlite"), ledger=ledger), ledger


def test_role_settings_prefer_role_env_then_shared_env_then_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "colabench.toml"
    config.write_text(
        '[llm]\nbase_url = "http://toml-shared/v1"\nmodel = "toml-model"\ntemperature = 0.3\n'
        '[llm.judge]\nmodel = "toml-judge"\nmax_tokens = 777\n'
    )
    monkeypatch.setenv("COLABENCH_CONFIG", str(config))
    for name in ("COLABENCH_LLM_BASE_URL", "COLABENCH_LLM_MODEL", "COLABENCH_LLM_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    judge = load_role_settings("judge")
    assert (judge.base_url, judge.model, judge.max_tokens, judge.temperature) == (
        "http://toml-shared/v1",
        "toml-judge",
        777,
        0.3,
    )
    assert load_role_settings("answerer").model == "toml-model"
    monkeypatch.setenv("COLABENCH_LLM_MODEL", "env-shared")
    assert load_role_settings("judge").model == "env-shared"  # environment variables beat the config file
    monkeypatch.setenv("COLABENCH_LLM_JUDGE_MODEL", "env-judge")
    assert load_role_settings("judge").model == "env-judge"
    assert load_role_settings("answerer").model == "env-shared"


def test_unconfigured_role_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLABENCH_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("COLABENCH_LLM_STATE_BASE_URL", raising=False)
    settings = load_role_settings("state")
    assert not settings.configured
    with pytest.raises(LLMConfigError, match="COLABENCH_LLM_STATE_BASE_URL"):
        settings.require()


def test_public_record_and_errors_never_contain_the_api_key(fake: FakeOpenAI, tmp_path: Path) -> None:
    settings = load_role_settings(
        "judge", base_url=f"http://user:{SECRET}@127.0.0.1:{fake.port}/v1?key={SECRET}", model="m", api_key=SECRET
    )
    assert SECRET not in str(settings.public_record())
    client, _ = _client(fake, tmp_path, max_retries=1)
    fake.inject(Fault.server_error(), Fault.server_error())
    with pytest.raises(LLMUnavailableError) as info:
        client.chat([{"role": "user", "content": "hello"}])
    assert SECRET not in str(info.value) and "HTTP 500" in str(info.value)
    assert fake.requests[-1]["model"] == "fake-judge"
    client.chat([{"role": "user", "content": "cached now"}])
    dump = "\n".join(str(row) for row in sqlite3.connect(tmp_path / "cache.sqlite").execute("SELECT * FROM responses"))
    assert SECRET not in dump


def test_identical_request_is_served_from_the_cache_without_an_endpoint_call(fake: FakeOpenAI, tmp_path: Path) -> None:
    client, ledger = _client(fake, tmp_path)
    messages = [{"role": "user", "content": "what is the waiting time?"}]
    first = client.chat(messages)
    calls = fake.request_count
    again = client.chat(messages)
    assert fake.request_count == calls
    assert again.cached and not first.cached
    assert (again.content, again.tokens_in, again.tokens_out) == (first.content, first.tokens_in, first.tokens_out)
    fresh_client, fresh_ledger = _client(fake, tmp_path)  # a new process reading the same cache file
    assert fresh_client.chat(messages).content == first.content and fake.request_count == calls
    usage = ledger.as_dict()["judge"]
    assert (usage["calls"], usage["cache_hits"], usage["endpoint_requests"]) == (2, 1, 1)
    assert usage["billed_tokens_in"] == first.tokens_in and usage["tokens_in"] == 2 * first.tokens_in
    assert fresh_ledger.as_dict()["judge"]["cache_hits"] == 1


def test_a_different_parameter_is_a_different_cache_entry(fake: FakeOpenAI, tmp_path: Path) -> None:
    cold, _ = _client(fake, tmp_path, temperature=0.0)
    warm, _ = _client(fake, tmp_path, temperature=0.7)
    messages = [{"role": "user", "content": "same text"}]
    cold.chat(messages)
    before = fake.request_count
    warm.chat(messages)
    assert fake.request_count == before + 1


def test_429_500_timeout_and_malformed_body_are_retried(fake: FakeOpenAI, tmp_path: Path) -> None:
    client, ledger = _client(fake, tmp_path, max_retries=5)
    fake.inject(Fault.rate_limit(retry_after=0), Fault.server_error(), Fault.timeout(30.0), Fault.malformed_body())
    reply = client.chat([{"role": "user", "content": "survive the faults"}])
    assert reply.content == "echo 1"
    usage = ledger.as_dict()["judge"]
    assert (usage["endpoint_requests"], usage["retries"], usage["calls"]) == (5, 4, 1)


def test_client_errors_are_not_retried(fake: FakeOpenAI, tmp_path: Path) -> None:
    client, ledger = _client(fake, tmp_path, max_retries=5)
    fake.inject(Fault.http(400))
    with pytest.raises(LLMUnavailableError, match="HTTP 400"):
        client.chat([{"role": "user", "content": "x"}])
    assert fake.request_count == 1 and ledger.as_dict()["judge"]["retries"] == 0


def test_structured_reply_is_repaired_after_invalid_json(fake: FakeOpenAI, tmp_path: Path) -> None:
    client, ledger = _client(fake, tmp_path)
    fake.inject(Fault.invalid_json_content())
    result = client.structured([{"role": "user", "content": "judge this"}], Verdict, name="verdict")
    assert result.value == Verdict(verdict="pass", rationale="fine")
    assert len(result.replies) == 2
    repair = fake.requests[-1]["messages"][-1]["content"]
    assert "could not be used" in repair
    assert fake.requests[-1]["response_format"]["type"] == "json_schema"
    assert fake.requests[-1]["response_format"]["json_schema"]["strict"] is True
    assert ledger.as_dict()["judge"]["invalid_replies"] == 1


def test_structured_reply_that_stays_invalid_raises(fake: FakeOpenAI, tmp_path: Path) -> None:
    client, _ = _client(fake, tmp_path, invalid_output_retries=1)
    fake.inject(Fault.invalid_json_content(), Fault.invalid_json_content())
    with pytest.raises(LLMOutputError, match="after 2 attempt"):
        client.structured([{"role": "user", "content": "judge that"}], Verdict, name="verdict")


def test_json_object_mode_puts_the_schema_in_the_system_prompt(fake: FakeOpenAI, tmp_path: Path) -> None:
    client, _ = _client(fake, tmp_path, structured_mode="json_object")
    messages = [{"role": "system", "content": "You judge."}, {"role": "user", "content": "go"}]
    assert client.structured(messages, Verdict, name="verdict").value.verdict == "pass"
    sent = fake.requests[-1]
    assert sent["response_format"] == {"type": "json_object"}
    assert sent["messages"][0]["role"] == "system" and '"verdict"' in sent["messages"][0]["content"]
    assert sum(1 for m in sent["messages"] if m["role"] == "system") == 1


def test_check_rejections_are_sent_back_to_the_model(fake: FakeOpenAI, tmp_path: Path) -> None:
    client, _ = _client(fake, tmp_path, invalid_output_retries=1)
    with pytest.raises(LLMOutputError, match="must be fail"):
        client.structured(
            [{"role": "user", "content": "x"}],
            Verdict,
            name="verdict",
            check=lambda v: None if v.verdict == "fail" else "verdict must be fail",
        )
    assert "must be fail" in fake.requests[-1]["messages"][-1]["content"]


def test_strict_mode_only_for_closed_all_required_schemas() -> None:
    class Loose(BaseModel):
        a: int = 1

    assert is_strict_compatible(Verdict.model_json_schema())
    assert not is_strict_compatible(Loose.model_json_schema())


def test_prompt_hash_is_the_sha256_of_the_template_text() -> None:
    import hashlib

    template = builtin_prompts()["judge_accuracy"]
    assert template.sha256 == hashlib.sha256(template.text.encode()).hexdigest()
    messages = render_messages(
        template,
        question="q",
        asked_at="now",
        history="h",
        reference_answer="r",
        requirements="req",
        documents="d",
        states="s",
        evidence="e",
        answer="a",
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "## The assistant's answer\na" in messages[1]["content"]


def test_external_prompt_file_is_checked_against_its_pinned_hash(tmp_path: Path) -> None:
    builtin = builtin_prompts()["answer_final"]
    path = tmp_path / "final.txt"
    path.write_text("Budget of $max_rounds rounds used. Answer now.")
    loaded = load_prompt_file(builtin, path)
    assert loaded.source == str(path) and loaded.version == "file:final.txt"
    assert load_prompt_file(builtin, path, loaded.sha256).sha256 == loaded.sha256
    with pytest.raises(PromptError, match="expected"):
        load_prompt_file(builtin, path, "0" * 64)
    path.write_text("No placeholder here.")
    with pytest.raises(PromptError, match="placeholders"):
        load_prompt_file(builtin, path)
    path.write_text("Budget of $max_rounds rounds used. Answer now.")
    prompts = PromptSet.from_config([f"answer_final={path}@{loaded.sha256}"])
    assert prompts.records(["answer_final"])["answer_final"]["sha256"] == loaded.sha256
    with pytest.raises(PromptError, match="cannot be replaced"):
        PromptSet.from_config([f"structured_repair={path}"])
