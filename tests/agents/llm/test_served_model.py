"""The served model is checked (issue 30, item 4): the `model` a reply names is counted per role in the usage
(the run record's), a reply from another model is one warning line, or an error that is not cached under
`strict_model`; `llm ping` says which model answered and exits 3 on a mismatch with --strict-model; a run
whose every reply came from the cache says it sent nothing and names the cache, and another endpoint is not
answered from it. On the fake OpenAI server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.llm.accounting import UsageLedger
from agents.llm.cache import ResponseCache
from agents.llm.client import LLMClient
from agents.llm.served_model import LLMModelMismatchError, mismatch_lines, same_model
from agents.llm.settings import load_role_settings
from agents.metrics.attempts import load_run_record
from graph.store import EventStore
from tests.cli.test_run_and_report_processes import REPO, cli_env
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.policy import AutoPolicy

HELLO = [{"role": "user", "content": "hello"}]


def ready(body: dict) -> Reply:
    return Reply.text("ready")


@pytest.fixture(autouse=True)
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty.toml").write_text("")
    monkeypatch.setenv("COLABENCH_CONFIG", str(tmp_path / "empty.toml"))


def _client(fake: FakeOpenAI, tmp_path: Path, **overrides: object) -> tuple[LLMClient, UsageLedger]:
    settings = load_role_settings(
        "answerer", base_url=fake.base_url, model="qwen-7b", retry_base_s=0.0, timeout_s=5.0, **overrides
    )
    ledger = UsageLedger()
    return LLMClient(settings, cache=ResponseCache(tmp_path / "c.sqlite"), ledger=ledger), ledger


def test_same_model_reads_a_served_file_name_but_not_another_model() -> None:
    assert same_model("SmolLM2-135M-Instruct", "/models/smollm2-135m-instruct.gguf")
    assert same_model("qwen-7b", "qwen-7b")
    assert same_model("qwen-7b", "")  # a reply that names no model tells nothing
    assert not same_model("no-such-model", "SmolLM2-135M-Instruct-Q8_0.gguf")


def test_usage_counts_the_model_that_answered_and_each_mismatch(tmp_path: Path) -> None:
    with FakeOpenAI(ready, served_model="llama-3-8b.gguf") as fake:
        client, ledger = _client(fake, tmp_path)
        client.chat(HELLO)
        client.chat(HELLO)  # from the cache: not counted as an answer of the endpoint
        client.chat([{"role": "user", "content": "again"}])
    usage = ledger.as_dict()
    assert usage["answerer"]["served_models"] == {"llama-3-8b.gguf": 2}
    assert usage["answerer"]["model_mismatches"] == {"qwen-7b -> llama-3-8b.gguf": 2}
    assert mismatch_lines(usage) == [
        "role 'answerer': configured model 'qwen-7b', but 2 replies came from 'llama-3-8b.gguf' (the run record's "
        "usage.answerer.served_models names what answered; --strict-model fails instead)"
    ]


def test_a_matching_model_leaves_no_mismatch(tmp_path: Path) -> None:
    with FakeOpenAI(ready) as fake:
        client, ledger = _client(fake, tmp_path)
        client.chat(HELLO)
    usage = ledger.as_dict()
    assert usage["answerer"]["served_models"] == {"qwen-7b": 1}
    assert mismatch_lines(usage) == []


def test_strict_model_refuses_a_reply_from_another_model_and_never_caches_it(tmp_path: Path) -> None:
    with FakeOpenAI(ready, served_model="llama-3-8b.gguf") as fake:
        client, _ = _client(fake, tmp_path, strict_model=True)
        with pytest.raises(LLMModelMismatchError, match=r"configured model 'qwen-7b', but .* answered as 'llama-3-8b"):
            client.chat(HELLO)
        with pytest.raises(LLMModelMismatchError):
            client.chat(HELLO)  # asked again: nothing was cached
        assert fake.request_count == 2


def _ping(tmp_path: Path, base_url: str, *flags: str) -> subprocess.CompletedProcess[str]:
    env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=base_url, COLABENCH_LLM_MODEL="no-such-model")
    return subprocess.run(
        [sys.executable, "-m", "cli", "llm", "ping", *flags], env=env, cwd=REPO, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


def test_llm_ping_names_the_served_model_warns_and_fails_with_strict_model(tmp_path: Path) -> None:
    with FakeOpenAI(ready, served_model="SmolLM2-135M-Instruct-Q8_0.gguf") as fake:
        lenient = _ping(tmp_path, fake.base_url)
        strict = _ping(tmp_path, fake.base_url, "--strict-model")
    assert lenient.returncode == 0, lenient.stderr
    assert "served model SmolLM2-135M-Instruct-Q8_0.gguf" in " ".join(lenient.stdout.split())
    assert "configured model 'no-such-model', but" in " ".join(lenient.stderr.split())
    assert strict.returncode == 3, strict.stdout + strict.stderr
    assert "answered as 'SmolLM2-135M-Instruct-Q8_0.gguf'" in " ".join(strict.stderr.split())


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config")
def test_a_run_records_what_answered_and_a_cache_only_rerun_says_it_sent_nothing(
    mini_store: EventStore, tmp_path: Path
) -> None:
    args = ["run", "--methods", "RAW_TURNS", "--dataset", "mini", "--items", "1", "--judges", "none", "--fresh",
            "--no-report"]  # fmt: skip
    cache = str(tmp_path / "cache.sqlite")
    with FakeOpenAI(AutoPolicy(), served_model="other-model.gguf", n_ctx=8192) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model",
                      COLABENCH_LLM_CACHE=cache, COLABENCH_LLM_MAX_RETRIES="0")  # fmt: skip
        first = subprocess.run([sys.executable, "-m", "cli", *args], env=env, cwd=REPO, capture_output=True,
                               text=True, timeout=300)  # fmt: skip
        sent = fake.request_count
        # Every reply is in the cache: the rerun finishes, asks nothing and says so.
        again = subprocess.run([sys.executable, "-m", "cli", *args], env=env, cwd=REPO, capture_output=True,
                               text=True, timeout=300)  # fmt: skip
        assert fake.request_count == sent
    out = " ".join(first.stdout.split())
    assert first.returncode == 0, first.stdout + first.stderr
    assert "warning: role 'answerer': configured model 'fake-model', but" in out and "'other-model.gguf'" in out
    assert "context per slot: answerer 8,192 tokens" in out  # known before the first request
    with mini_store.driver.session() as session:
        # the first run (the rerun's --fresh batch is a second one)
        run = session.run("MATCH (r:Run) RETURN r.usage AS u, r.id AS id ORDER BY r.seq LIMIT 1").single()
    usage = json.loads(run["u"])
    assert load_run_record(mini_store.driver, "neo4j", run["id"]).config["context_tokens"] == {"answerer": 8192}
    assert usage["answerer"]["served_models"] == {"other-model.gguf": usage["answerer"]["endpoint_requests"]}
    out = " ".join(again.stdout.split())
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"every reply came from the response cache ({cache}): nothing was sent to the endpoint" in out
    # Another endpoint (here a dead one) is not answered from the first one's cached replies.
    env["COLABENCH_LLM_BASE_URL"] = "http://127.0.0.1:9/v1"
    # (the endpoint check up front would stop it before any cache lookup: skipped, so the cache key is what is tested)
    elsewhere = subprocess.run([sys.executable, "-m", "cli", *args, "--no-endpoint-check"], env=env, cwd=REPO,
                               capture_output=True, text=True, timeout=300)  # fmt: skip
    assert elsewhere.returncode == 3, elsewhere.stdout + elsewhere.stderr
    assert "every reply came from the response cache" not in " ".join(elsewhere.stdout.split())
