"""Each role's context size is known before a request (issue 30, item 2): asked of the server's `/props`
(llama.cpp) or given as `context_tokens`; a request whose text alone fills it, counted by the server's
`/tokenize`, is refused here with both sizes and never sent; a request that fits, or a server that does not
say, is sent as before. On the fake OpenAI server (one token per character)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.llm.accounting import UsageLedger
from agents.llm.client import LLMClient
from agents.llm.context_size import LLMContextExceededError
from agents.llm.settings import load_role_settings
from tests.agents.llm.test_served_model import _ping
from tests.fake_openai import FakeOpenAI, Reply


def ready(body: dict) -> Reply:
    return Reply.text("ready")


@pytest.fixture(autouse=True)
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty.toml").write_text("")
    monkeypatch.setenv("COLABENCH_CONFIG", str(tmp_path / "empty.toml"))


def _client(fake: FakeOpenAI, **overrides: object) -> LLMClient:
    settings = load_role_settings(
        "judge", base_url=fake.base_url, model="fake-model", retry_base_s=0.0, timeout_s=5.0, **overrides
    )
    return LLMClient(settings, cache=None, ledger=UsageLedger(), cache_mode="off")


def test_a_request_larger_than_the_served_context_is_refused_with_both_sizes_and_never_sent() -> None:
    with FakeOpenAI(ready, n_ctx=300, tokenizer="llama.cpp") as fake:
        client = _client(fake)
        assert client.context_tokens == 300
        with pytest.raises(LLMContextExceededError, match=r"alone are 400 tokens .* is 300 tokens per slot") as refused:
            client.chat([{"role": "user", "content": "x" * 400}])
        assert refused.value.retryable is False  # a plain rerun would be refused again
        assert fake.request_count == 0
        client.chat([{"role": "user", "content": "y" * 250}])  # fits: sent, without counting it first
        assert (fake.request_count, fake.tokenize_requests) == (1, 1)


def test_the_context_setting_applies_when_the_server_does_not_say() -> None:
    with FakeOpenAI(ready, tokenizer="llama.cpp") as fake:
        client = _client(fake, context_tokens=100)
        with pytest.raises(LLMContextExceededError):
            client.chat([{"role": "user", "content": "z" * 150}])
        assert fake.request_count == 0


def test_without_a_known_context_or_a_tokenizer_the_request_is_sent() -> None:
    with FakeOpenAI(ready) as fake:
        assert _client(fake).context_tokens is None
        _client(fake).chat([{"role": "user", "content": "w" * 5000}])
    with FakeOpenAI(ready, n_ctx=100) as fake:  # no /tokenize: the size cannot be counted, the server decides
        _client(fake).chat([{"role": "user", "content": "w" * 5000}])
        assert fake.request_count == 1


def test_llm_ping_names_the_context_size(tmp_path: Path) -> None:
    with FakeOpenAI(ready, n_ctx=8192) as fake:
        done = _ping(tmp_path, fake.base_url)
    assert "context 8,192 tokens per slot" in " ".join(done.stdout.split()), done.stdout + done.stderr
