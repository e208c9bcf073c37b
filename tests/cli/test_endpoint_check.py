"""The endpoint check up front (agents/llm/preflight.py, cli/endpoint_check.py): a command that needs LLM roles asks
each role's endpoint once, before any work, and a wrong port, a refused key or an unknown model stops it with one
line naming the role, the URL and the reason, exit 3, no retry and nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli import app
from graph.server import free_port
from graph.store import EventStore
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy

RUN = ["run", "--methods", "RAW_TURNS", "--dataset", "mini", "--items", "1", "--judges", "none", "--fresh",
       "--no-report"]  # fmt: skip


@pytest.fixture()
def llm_env(isolated_config: None, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Point every role at `base_url` with `model` (a setter the test calls)."""

    def point(base_url: str, model: str = "fake-model", **extra: str) -> None:
        monkeypatch.setenv("COLABENCH_LLM_BASE_URL", base_url)
        monkeypatch.setenv("COLABENCH_LLM_MODEL", model)
        # a retry would follow a refused connection or an HTTP error at once (no backoff): any retry the check
        # made would show up in the fake's counts
        monkeypatch.setenv("COLABENCH_LLM_RETRY_BASE_S", "0")
        for name, value in extra.items():
            monkeypatch.setenv(name, value)

    return point


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if "endpoint check" in line or line.startswith("error")]


def _event_count(store: EventStore) -> int:
    return store.head().seq


def test_a_wrong_port_stops_the_command_before_any_work_with_one_line(
    mini_store: EventStore, llm_env: Any
) -> None:
    port = free_port()  # nothing listens here
    llm_env(f"http://127.0.0.1:{port}/v1")
    before = _event_count(mini_store)

    result = CliRunner().invoke(app, RUN)

    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert f"role 'answerer' at http://127.0.0.1:{port}/v1: connection refused" in text
    assert len(_error_lines(result.output)) == 1, result.output
    # the client's retrying path never ran: its failure says how many requests it made
    assert "request(s)" not in text and "kept failing" not in text
    assert _event_count(mini_store) == before  # no batch planned, no run, nothing written


def test_an_unknown_model_is_named_with_what_the_server_lists_and_nothing_is_retried(
    mini_store: EventStore, llm_env: Any
) -> None:
    with FakeOpenAI(AutoPolicy(), models=["qwen2.5-7b-instruct"]) as fake:
        llm_env(fake.base_url, "no-such-model")
        before = _event_count(mini_store)
        result = CliRunner().invoke(app, RUN)
        assert (fake.models_requests, fake.check_requests, fake.request_count) == (1, 1, 0)
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert "role 'answerer'" in text and fake.base_url in text
    assert "unknown model 'no-such-model': the server lists qwen2.5-7b-instruct (HTTP 404)" in text
    assert len(_error_lines(result.output)) == 1, result.output
    assert _event_count(mini_store) == before


def test_a_refused_key_is_one_line_naming_the_status(mini_store: EventStore, llm_env: Any) -> None:
    with FakeOpenAI(AutoPolicy(), api_key="the-right-key") as fake:
        llm_env(fake.base_url, COLABENCH_LLM_API_KEY="a-wrong-key")
        result = CliRunner().invoke(app, RUN)
        assert (fake.request_count, fake.check_requests) == (0, 0)
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert "HTTP 401: the endpoint refused the API key" in text and "Incorrect API key" in text
    assert "a-wrong-key" not in text


def test_every_role_of_one_endpoint_is_checked_once_then_the_run_goes_on(
    mini_store: EventStore, llm_env: Any
) -> None:
    with FakeOpenAI(AutoPolicy()) as fake:
        llm_env(fake.base_url)
        result = CliRunner().invoke(app, [*RUN[:-4], "--judges", "accuracy", "--fresh", "--no-report"])
        assert fake.models_requests == 1  # answerer and judge share the endpoint and the model
        assert fake.request_count > 0
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert f"endpoints answer: answerer fake-model at {fake.base_url}; judge fake-model at {fake.base_url}" in text


def test_a_model_the_list_does_not_name_is_asked_with_one_token_as_llama_cpp_serves_any_name(llm_env: Any) -> None:
    from agents.llm.preflight import check_role
    from agents.llm.settings import load_role_settings

    with FakeOpenAI(AutoPolicy()) as fake:  # lists "fake-model", answers for any model name
        llm_env(fake.base_url, "listed-nowhere")
        asked = check_role(load_role_settings("judge"))
        assert (fake.models_requests, fake.check_requests, fake.request_count) == (1, 1, 0)
        llm_env(fake.base_url, "fake-model")
        listed = check_role(load_role_settings("judge"))
        assert (fake.models_requests, fake.check_requests) == (2, 1)
    assert (asked.how, listed.how) == ("one-token request", "models list")
    assert asked.role == "judge" and asked.url == fake.base_url


def test_no_endpoint_check_skips_it_and_says_so(mini_store: EventStore, llm_env: Any) -> None:
    with FakeOpenAI(AutoPolicy(), models=["no-such-model"]) as fake:
        llm_env(fake.base_url)
        flagged = CliRunner().invoke(app, [*RUN, "--no-endpoint-check"])
        llm_env(fake.base_url, COLABENCH_LLM_ENDPOINT_CHECK="0")
        configured = CliRunner().invoke(app, RUN)
        assert (fake.models_requests, fake.check_requests) == (0, 0)
    for result in (flagged, configured):
        assert "endpoint check skipped for answerer" in result.output
        # not checked, the run met the unknown model at its first request instead
        assert result.exit_code == 3, result.output


def test_memory_build_of_an_llm_built_system_checks_the_memory_role_before_the_graph(
    llm_env: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLABENCH_NEO4J_PORT", str(free_port()))  # no Neo4j: the check must come first
    monkeypatch.delenv("NEO4J_URI", raising=False)
    port = free_port()
    llm_env(f"http://127.0.0.1:{port}/v1")
    result = CliRunner().invoke(app, ["memory", "build", "--system", "mem0"])
    assert result.exit_code == 3, result.output
    assert f"role 'memory' at http://127.0.0.1:{port}/v1: connection refused" in " ".join(result.output.split())
