"""Tokens counted in the answering model's tokenizer: the probe finds the endpoint's `/tokenize` (llama.cpp and
vLLM forms, on the fake server whose tokenizer counts characters), Read's 3,000-token limit and A-MEM's
5,120-token cap hold in those counts, tiktoken is never downloaded, a failing tokenizer endpoint falls back to
the named WordPiece with the reason in the run record, and one that fails mid-run stops with a clear error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from query.linked_memory_response import LinkExpandedResponse
from query.model_tokens import TokenizerUnavailableError, probe_tokenizer
from query.read_tool import select_lines
from query.results import MemoryHit
from query.tokens import TOKENIZER_NAME, WORDPIECE, count_tokens, cut_to_tokens
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.policy import AutoPolicy
from tests.fake_openai.server import fake_token_count

pytestmark = pytest.mark.usefixtures("isolated_config")


def answer(body: dict[str, Any]) -> Reply:
    return Reply.text("ok")


@pytest.mark.parametrize("flavour", ["llama.cpp", "vllm"])
def test_counts_come_from_the_endpoints_tokenize(flavour: str) -> None:
    text = "Blood donation after a tattoo: wait four months."
    with FakeOpenAI(answer, tokenizer=flavour) as fake:
        choice = probe_tokenizer(fake.base_url, "local-model")
        assert choice.source == "endpoint" and choice.fallback_reason is None
        assert flavour in choice.counter.name and "local-model" in choice.counter.name
        assert choice.counter.count([text, text]) == [fake_token_count(text)] * 2
        # the second count of the same text comes from the cache
        assert fake.tokenize_requests == (1 if flavour == "llama.cpp" else 2) + 1
    assert fake_token_count(text) != count_tokens([text])[0]


def test_a_failing_tokenizer_endpoint_falls_back_to_the_named_wordpiece(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "no-bpe-files"))
    with FakeOpenAI(answer, tokenizer="broken") as fake:
        choice = probe_tokenizer(fake.base_url, "local-model")
    assert choice.counter is WORDPIECE and choice.source == "fallback"
    assert "/tokenize" in str(choice.fallback_reason) and "500" in str(choice.fallback_reason)
    note = choice.note()
    assert note is not None and TOKENIZER_NAME in note and "not the answering model's tokenizer" in note
    assert choice.record() == {"name": TOKENIZER_NAME, "source": "fallback", "fallback_reason": choice.fallback_reason}


def test_tiktoken_is_used_only_when_its_bpe_file_is_already_here(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import tiktoken.load

    fetched: list[str] = []
    monkeypatch.setattr(tiktoken.load, "read_file", lambda path: fetched.append(path) or b"")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "empty-cache"))
    with FakeOpenAI(answer) as fake:  # no /tokenize, as on an OpenAI endpoint
        choice = probe_tokenizer(fake.base_url, "gpt-4o")
    assert choice.source == "fallback" and not fetched
    assert "o200k_base" in str(choice.fallback_reason) and "never downloaded" in str(choice.fallback_reason)


class CharCounter:
    name = "characters"

    def count(self, texts: list[str]) -> list[int]:
        return [len(t) for t in texts]


def test_read_keeps_whole_lines_within_the_limit_in_the_models_tokens() -> None:
    lines = [f"line {i} " + "word " * 30 for i in range(1, 101)]
    out, truncated, used = select_lines(lines, 1, 100, counter=CharCounter())
    assert truncated and used == len("\n".join(out)) <= 3000
    assert len("\n".join(lines[: len(out) + 1])) > 3000
    long_line = "word " * 1000
    cut, truncated, used = select_lines([long_line], 1, 1, counter=CharCounter())
    assert truncated and len(cut) == 1 and used == len(cut[0]) <= 3000 and cut[0].endswith("word")
    assert cut_to_tokens("alpha beta gamma", 11, CharCounter()) == "alpha beta"


def test_amem_response_cap_holds_in_the_models_tokens() -> None:
    hits = [
        MemoryHit(memory_id=f"m{i}", system="amem", text="note " * 100, source_turn_ids=["t1"], score=1.0, rank=i + 1)
        for i in range(20)
    ]

    def body(some: list[MemoryHit]) -> str:
        entries = [{"memory_id": h.memory_id, "text": h.text, "source_turn_ids": h.source_turn_ids} for h in some]
        return json.dumps({"memories": entries})

    kept = LinkExpandedResponse().cap(hits, CharCounter())
    assert 0 < len(kept) < len(hits) and len(body(kept)) <= 5120 < len(body(hits[: len(kept) + 1]))


def test_a_tokenizer_that_fails_after_the_probe_stops_with_a_clear_error() -> None:
    with FakeOpenAI(answer, tokenizer="llama.cpp") as fake:
        choice = probe_tokenizer(fake.base_url, "local-model")
        fake.tokenizer = "broken"
        with pytest.raises(TokenizerUnavailableError, match=r"/tokenize failed .*the run stops"):
            choice.counter.count(["a text never counted before"])


# --- a run records which tokenizer counted ----------------------------------------------------------------


def run_once(store: Any, retriever: Any, fake: FakeOpenAI, tmp_path: Path) -> tuple[Any, Any]:
    from agents.llm.roles import LLMRoles
    from agents.methods import parse_methods
    from agents.metrics.attempts import load_run_record
    from agents.prompts.registry import PromptSet
    from agents.runs.plan import RunOptions, plan_batch
    from agents.runs.runner import execute_batch

    base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0}
    roles = LLMRoles(
        overrides={r: dict(base) for r in ("answerer", "judge", "state")}, cache_path=tmp_path / "c.sqlite"
    )
    prompts = PromptSet()
    plan = plan_batch(
        store, parse_methods("HYBRID"), RunOptions(dataset="mini", judges=(), items=1, fresh=True),
        roles, prompts, encoder_id=store.encoder.encoder_id,
    )
    try:
        report = execute_batch(store, retriever, plan, roles, prompts, concurrency=1)
    finally:
        roles.close()
    return report, load_run_record(store.driver, "neo4j", plan.runs[0].run_id)


@pytest.mark.neo4j
def test_a_run_counts_with_the_endpoints_tokenizer_or_records_the_fallback(
    mini_store: Any, mini_retriever: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "no-bpe-files"))
    with FakeOpenAI(AutoPolicy(), tokenizer="llama.cpp") as fake:
        report, record = run_once(mini_store, mini_retriever, fake, tmp_path)
        assert fake.tokenize_requests > 1  # the probe, then the Read tool's counts
    tokenizer = record.config["tokenizer"]
    assert tokenizer["source"] == "endpoint" and "llama.cpp" in tokenizer["name"]
    assert not any("fallback" in n for n in report.notes)

    with FakeOpenAI(AutoPolicy(), tokenizer="broken") as fake:
        report, record = run_once(mini_store, mini_retriever, fake, tmp_path)
    tokenizer = record.config["tokenizer"]
    assert tokenizer["source"] == "fallback" and tokenizer["name"] == TOKENIZER_NAME
    assert "500" in tokenizer["fallback_reason"]
    assert any(TOKENIZER_NAME in n for n in report.notes)
    mini_retriever.token_counter = WORDPIECE  # the module's other tests share this retriever
