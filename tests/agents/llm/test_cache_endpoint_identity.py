"""The response cache keys on the endpoint too (issue 30, item 4): a reply recorded from one endpoint (another port,
host or path) is never served to another, while one endpoint spelled two ways (case, default port, trailing
slash, credentials) shares its replies. On two fake OpenAI servers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.llm.accounting import UsageLedger
from agents.llm.cache import ResponseCache, endpoint_identity, request_key
from agents.llm.client import LLMClient
from agents.llm.settings import load_role_settings
from tests.fake_openai import FakeOpenAI, Reply

HELLO = [{"role": "user", "content": "hello"}]


@pytest.fixture(autouse=True)
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty.toml").write_text("")
    monkeypatch.setenv("COLABENCH_CONFIG", str(tmp_path / "empty.toml"))
    monkeypatch.delenv("COLABENCH_LLM_CACHE_NAMESPACE", raising=False)


def saying(text: str) -> Any:
    return lambda body: Reply.text(text)


def client(base_url: str, cache: Path, model: str = "fake-model") -> LLMClient:
    settings = load_role_settings("answerer", base_url=base_url, model=model, retry_base_s=0.0, timeout_s=5.0)
    return LLMClient(settings, cache=ResponseCache(cache), ledger=UsageLedger())


def test_a_second_endpoint_never_gets_the_reply_cached_from_the_first(tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with FakeOpenAI(saying("from A")) as a, FakeOpenAI(saying("from B")) as b:
        first = client(a.base_url, cache).chat(HELLO)
        second = client(b.base_url, cache).chat(HELLO)
        again = client(a.base_url, cache).chat(HELLO)
        assert (a.request_count, b.request_count) == (1, 1)
    assert (first.content, first.cached) == ("from A", False)
    assert (second.content, second.cached) == ("from B", False)  # asked of B, not A's cached reply
    assert (again.content, again.cached) == ("from A", True)  # A's own reply is still cached for A
    assert ResponseCache(cache).count() == 2


def test_one_endpoint_spelled_two_ways_shares_its_cached_replies(tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with FakeOpenAI(saying("ready")) as fake:
        client(fake.base_url, cache).chat(HELLO)
        respelled = fake.base_url.replace("http://127.0.0.1", "HTTP://user:secret@127.0.0.1") + "/"
        reply = client(respelled, cache).chat(HELLO)
        assert fake.request_count == 1
    assert reply.cached and reply.content == "ready"


def test_another_model_on_the_same_endpoint_is_asked_itself(tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with FakeOpenAI(saying("ready")) as fake:
        client(fake.base_url, cache, model="model-a").chat(HELLO)
        reply = client(fake.base_url, cache, model="model-b").chat(HELLO)
        assert fake.request_count == 2
    assert not reply.cached


def test_endpoint_identity_keeps_what_selects_the_endpoint_and_drops_the_rest() -> None:
    assert endpoint_identity("HTTPS://Api.Example.org:443/v1/") == "https://api.example.org/v1"
    assert endpoint_identity("http://key:pw@localhost:80/v1#frag") == "http://localhost/v1"
    assert endpoint_identity("http://127.0.0.1:8080/v1?api-version=2") == "http://127.0.0.1:8080/v1?api-version=2"
    assert endpoint_identity("http://[::1]:8080/v1") == "http://[::1]:8080/v1"
    assert len({endpoint_identity(u) for u in ("http://h:8080/v1", "http://h:8081/v1", "http://h:8080/v2")}) == 3
    request = {"model": "m", "messages": HELLO}
    assert request_key(request, endpoint="http://h:8080/v1") != request_key(request, endpoint="http://h:8081/v1")
    assert request_key(request, endpoint="http://h:8080/v1") != request_key(request)
