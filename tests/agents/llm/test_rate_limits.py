"""Rate limits against the fake endpoint: jittered, seedable retry waits that honour Retry-After (capped), 429s
and waits counted per role, nothing cached from an error reply, the per-endpoint concurrency limit shared by
every role of one URL and key (proved with a barrier, never a clock), the requests-per-minute window (a
scripted clock), and the endpoint's prefix-cache figures read from the reply. No Neo4j needed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.llm.accounting import UsageLedger, prefix_hit_rate
from agents.llm.cache import ResponseCache
from agents.llm.client import LLMClient
from agents.llm.errors import LLMUnavailableError
from agents.llm.rate_limit import EndpointLimiter, endpoint_identity
from agents.llm.roles import LLMRoles
from agents.llm.settings import load_role_settings
from tests.fake_openai import FakeOpenAI, Fault, Reply

SYSTEM = "You answer questions about respite care. " * 20  # a long stable prefix


def _responder(body: dict[str, Any]) -> Reply:
    return Reply.text(f"echo {len(body['messages'])}")


@pytest.fixture(autouse=True)
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    monkeypatch.setenv("COLABENCH_CONFIG", str(empty))


@pytest.fixture()
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(_responder) as server:
        yield server


def _client(
    fake: FakeOpenAI, slept: list[float], *, cache: ResponseCache | None = None, **overrides: Any
) -> tuple[LLMClient, UsageLedger]:
    settings = load_role_settings("judge", base_url=fake.base_url, model="m", timeout_s=30.0, **overrides)
    ledger = UsageLedger()
    client = LLMClient(settings, cache=cache, ledger=ledger, cache_mode="use" if cache else "off", sleep=slept.append)
    return client, ledger


def test_the_same_retry_seed_gives_the_same_jittered_waits_within_the_full_jitter_bounds(fake: FakeOpenAI) -> None:
    waits: list[list[float]] = []
    for _ in range(2):
        slept: list[float] = []
        client, _ledger = _client(fake, slept, retry_base_s=2.0, retry_max_s=5.0, retry_seed=7, max_retries=4)
        fake.inject(*[Fault.server_error()] * 4)
        client.chat([{"role": "user", "content": "x"}])
        waits.append(slept)
    assert waits[0] == waits[1], "a seeded client waited differently the second time"
    assert len(waits[0]) == 4
    for attempt, wait in enumerate(waits[0], start=1):
        assert 0.0 <= wait <= min(5.0, 2.0 * 2 ** (attempt - 1))
    assert len(set(waits[0])) > 1, "the waits are not jittered"


def test_decorrelated_jitter_stays_between_the_base_and_three_times_the_previous_wait(fake: FakeOpenAI) -> None:
    slept: list[float] = []
    client, _ = _client(fake, slept, retry_base_s=1.0, retry_max_s=20.0, retry_seed=3, retry_jitter="decorrelated")
    fake.inject(*[Fault.server_error()] * 5)
    client.chat([{"role": "user", "content": "x"}])
    previous = 1.0
    for wait in slept:
        assert 1.0 <= wait <= min(20.0, 3 * previous)
        previous = wait


def test_retry_after_is_a_floor_and_the_configured_maximum_caps_it(fake: FakeOpenAI) -> None:
    slept: list[float] = []
    client, ledger = _client(fake, slept, retry_base_s=1.0, retry_max_s=30.0, retry_seed=1)
    fake.inject(Fault.rate_limit(retry_after=2.5), Fault.rate_limit(retry_after=100.0), Fault.server_error())
    client.chat([{"role": "user", "content": "x"}])
    assert 2.5 <= slept[0] <= 3.5, "Retry-After 2.5 s (plus at most one base wait of spread) was not honoured"
    assert slept[1] == 30.0, "a Retry-After beyond retry_max_s was not capped"
    usage = ledger.as_dict()["judge"]
    assert usage["rate_limited"] == 2 and usage["retries"] == 3
    assert usage["backoff_wait_s"] == pytest.approx(sum(slept))


def test_a_429_storm_is_counted_per_role_and_no_error_reply_is_cached(fake: FakeOpenAI, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    slept: list[float] = []
    client, ledger = _client(fake, slept, cache=cache, retry_base_s=0.0, max_retries=2)
    fake.rate_limit_each(times=3, retry_after=1.5)  # one more 429 than the client retries
    messages = [{"role": "user", "content": "storm"}]
    with pytest.raises(LLMUnavailableError, match="HTTP 429"):
        client.chat(messages)
    key = client.cache_key(client.build_request(messages))
    assert cache.get(key) is None, "an error reply was cached"
    assert ledger.as_dict()["judge"]["rate_limited"] == 3
    # The fourth request of the same body is answered: sent again (not served from a cache), then cached.
    before = fake.request_count
    reply = client.chat(messages)
    assert reply.content == "echo 1" and not reply.cached and fake.request_count == before + 1
    assert cache.get(key) is not None
    assert slept == [1.5, 1.5] and fake.rate_limited == 3


def _roles(fake: FakeOpenAI, tmp_path: Path, **shared: Any) -> LLMRoles:
    common = {"base_url": fake.base_url, "model": "m", "api_key": "sk-shared", "concurrency": 4, **shared}
    return LLMRoles(
        overrides={"answerer": dict(common), "judge": dict(common, endpoint_concurrency=5)},
        cache_mode="off",
        exchanges_path=tmp_path / "exchanges.sqlite",
    )


def test_the_endpoint_concurrency_limit_holds_over_every_role_of_one_url_and_key(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    roles = _roles(fake, tmp_path, endpoint_concurrency=2)  # the judge asks for 5: the tighter 2 holds
    answerer, judge = roles.client("answerer"), roles.client("judge")
    assert answerer.limiter is judge.limiter and answerer.limiter.concurrency == 2
    fake.hold_when(lambda body: True)
    replies: list[str] = []

    def ask(client: LLMClient, i: int) -> None:
        replies.append(str(client.chat([{"role": "user", "content": f"q{i}"}]).content))

    threads = [threading.Thread(target=ask, args=(c, i)) for i, c in enumerate([answerer, judge] * 3)]
    for thread in threads:
        thread.start()
    try:
        # Two requests reach the endpoint and are held there; the other four wait in the limiter.
        assert fake.wait_held(2), "no two requests reached the endpoint"
        assert answerer.limiter.wait_until(lambda lim: lim.waiting == 4), "the other requests are not waiting"
        assert fake.held == 2 and answerer.limiter.in_flight == 2
    finally:
        fake.release()
        for thread in threads:
            thread.join()
    assert len(replies) == 6 and answerer.limiter.most_in_flight == 2
    usage = roles.total_usage()
    assert usage["answerer"]["endpoint_requests"] == 3 and usage["judge"]["endpoint_requests"] == 3
    roles.close()


def test_another_key_on_the_same_url_is_another_endpoint(fake: FakeOpenAI, tmp_path: Path) -> None:
    one = load_role_settings("answerer", base_url=fake.base_url, model="m", api_key="sk-one")
    other = load_role_settings("judge", base_url=fake.base_url + "/", model="m", api_key="sk-two")
    same = load_role_settings("memory", base_url=fake.base_url, model="other", api_key="sk-one")
    assert endpoint_identity(one) != endpoint_identity(other)
    assert endpoint_identity(one) == endpoint_identity(same)
    assert "sk-one" not in endpoint_identity(one)


def test_the_requests_per_minute_window_makes_the_next_request_wait_for_the_oldest_to_leave() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    limiter = EndpointLimiter("e", concurrency=4, rpm=2, clock=lambda: now[0], sleep=sleep)
    waited = []
    for step in (0.0, 10.0, 0.0, 0.0, 55.0):
        now[0] += step
        with limiter.slot() as wait:
            waited.append(wait)
    # Sent at 0 and 10; the third waits until 60 (the first leaves the window), the fourth until 70; the
    # fifth, at 125, finds the window free.
    assert slept == [50.0, 10.0]
    assert waited == [0.0, 0.0, 50.0, 10.0, 0.0]


def test_the_limiter_wait_is_counted_for_the_role(fake: FakeOpenAI, tmp_path: Path) -> None:
    roles = _roles(fake, tmp_path, endpoint_concurrency=1, endpoint_rpm=1)
    now = [0.0]
    limiter = roles.client("answerer").limiter
    limiter._clock = lambda: now[0]  # a scripted minute: the second request waits 60 s of this clock
    limiter._sleep = lambda seconds: now.__setitem__(0, now[0] + seconds)
    roles.client("answerer").chat([{"role": "user", "content": "a"}])
    roles.client("judge").chat([{"role": "user", "content": "b"}])
    usage = roles.total_usage()
    assert usage["judge"]["limiter_wait_s"] >= 60.0 and usage["answerer"]["limiter_wait_s"] < 60.0
    roles.close()


@pytest.mark.parametrize("flavour", ["openai", "llama.cpp"])
def test_the_endpoint_prefix_cache_hits_are_read_into_the_ledger(flavour: str) -> None:
    with FakeOpenAI(_responder, prefix_cache=flavour) as fake:
        client, ledger = _client(fake, [])
        for question in ("first question", "second question", "third question"):
            client.chat([{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
    usage = ledger.as_dict()["judge"]
    assert usage["prefix_prompt_tokens"] == usage["billed_tokens_in"] > 0
    rate = prefix_hit_rate(usage)
    assert rate is not None and 0.5 < rate < 1.0, f"the repeated system prompt was not seen as cached ({rate})"


def test_the_prefix_hit_rate_is_unknown_when_the_endpoint_does_not_say(fake: FakeOpenAI) -> None:
    client, ledger = _client(fake, [])
    client.chat([{"role": "system", "content": SYSTEM}, {"role": "user", "content": "q"}])
    client.chat([{"role": "system", "content": SYSTEM}, {"role": "user", "content": "r"}])
    usage = ledger.as_dict()["judge"]
    assert usage["prefix_prompt_tokens"] == 0 and prefix_hit_rate(usage) is None


def test_the_limits_are_read_from_colabench_toml_and_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "colabench.toml"
    config.write_text(
        '[llm]\nendpoint_rpm = 30\nretry_jitter = "decorrelated"\n\n[llm.judge]\nendpoint_concurrency = 3\n'
    )
    monkeypatch.setenv("COLABENCH_CONFIG", str(config))
    monkeypatch.setenv("COLABENCH_LLM_ANSWERER_RETRY_SEED", "11")
    judge, answerer = load_role_settings("judge"), load_role_settings("answerer")
    assert (judge.endpoint_rpm, judge.endpoint_concurrency, judge.retry_jitter) == (30, 3, "decorrelated")
    assert (answerer.endpoint_concurrency, answerer.retry_seed) == (8, 11)


def test_prompt_tokens_the_prefix_cache_served_are_billed_at_the_cached_price() -> None:
    ledger = UsageLedger()
    common = {"cached": False, "tokens_in": 1000, "tokens_out": 100, "price_in_per_mtok": 1.0}
    ledger.record_call("a", **common, price_out_per_mtok=2.0, price_cached_per_mtok=0.25, prompt_cached_tokens=800)
    ledger.record_call("b", **common, price_out_per_mtok=2.0, prompt_cached_tokens=800)  # no cached price
    ledger.record_call("c", **common, price_out_per_mtok=2.0, price_cached_per_mtok=0.25)  # the endpoint said nothing
    usage = ledger.snapshot()
    cost = {role: usage[role].cost_usd for role in ("a", "b", "c")}
    assert cost["a"] == pytest.approx((200 * 1.0 + 800 * 0.25 + 100 * 2.0) / 1e6)
    assert cost["b"] == pytest.approx((1000 * 1.0 + 100 * 2.0) / 1e6)
    assert cost["c"] == cost["b"]
