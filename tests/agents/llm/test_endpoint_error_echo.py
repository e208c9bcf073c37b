"""An endpoint that echoes its request in an error body does not get the request's words into what colabench
keeps: the error text of the refusal (and so the EndpointFailed event made from it) has every run of request
words replaced, whether the echo is plain, JSON-escaped or JSON inside a JSON string, and keeps the rest."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.llm.accounting import UsageLedger
from agents.llm.client import LLMClient
from agents.llm.error_text import ECHO_WORDS, REMOVED, without_request_text
from agents.llm.errors import LLMRefusedError
from agents.llm.settings import load_role_settings
from agents.runs.attempt import failure_event
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.server import HttpError, Reply

SECRET_TEXT = "The reference answer: donate plasma after four months, at the Öresund clinic on Friday."


def _echo(body: dict[str, Any]) -> Reply:
    raise HttpError(400, "this request is too long for the proxy: " + json.dumps(body))


@pytest.fixture(autouse=True)
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    monkeypatch.setenv("COLABENCH_CONFIG", str(empty))


@pytest.fixture()
def client() -> Iterator[LLMClient]:
    with FakeOpenAI(_echo) as fake:
        settings = load_role_settings(
            "answerer", base_url=fake.base_url, model="fake", api_key="k", retry_base_s=0.0, max_retries=0
        )
        llm = LLMClient(settings, cache=None, ledger=UsageLedger())
        try:
            yield llm
        finally:
            llm.close()


def _shared_runs(kept: str, source: str) -> list[str]:
    """Runs of ECHO_WORDS words of `source` (case-folded) that still occur in `kept`."""
    words = source.casefold().replace(",", " ").replace(".", " ").replace(":", " ").split()
    flat = " ".join(kept.casefold().replace(",", " ").replace(".", " ").replace(":", " ").split())
    runs = [" ".join(words[i : i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1)]
    return [r for r in runs if r in flat]


def test_a_refusal_that_echoes_the_request_keeps_none_of_its_words(client: LLMClient) -> None:
    with pytest.raises(LLMRefusedError) as caught:
        client.chat([{"role": "system", "content": "You grade answers."}, {"role": "user", "content": SECRET_TEXT}])
    message = str(caught.value)
    assert "HTTP 400" in message and "too long for the proxy" in message and REMOVED in message
    assert _shared_runs(message, SECRET_TEXT) == [] and "plasma" not in message
    stored = failure_event("run-1", caught.value, stage="answer", role="answerer")
    assert stored.error == message[:2000] and "Öresund" not in stored.error


@pytest.mark.parametrize(
    "echo",
    [
        lambda r: f"prompt: {r['messages'][0]['content']}",
        lambda r: json.dumps({"error": "bad", "request": r}),
        lambda r: json.dumps({"error": "bad", "raw": json.dumps(r)}),
        lambda r: json.dumps({"request": r}, ensure_ascii=True),
    ],
    ids=["plain", "json", "json-in-json", "ascii-escaped"],
)
def test_an_echo_in_any_encoding_is_removed_and_the_rest_kept(echo: Any) -> None:
    request = {"model": "m", "messages": [{"role": "user", "content": SECRET_TEXT + "\nSecond line of it."}]}
    kept = without_request_text("upstream said: " + echo(request), request)
    assert kept.startswith("upstream said: ") and REMOVED in kept
    assert "Öresund" not in kept and "plasma" not in kept


def test_an_error_that_shares_no_run_of_words_with_the_request_is_kept_as_it_is() -> None:
    request = {"messages": [{"role": "user", "content": SECRET_TEXT}]}
    error = "maximum context length is 8192 tokens; the answer was long"
    assert without_request_text(error, request) == error


def test_the_endpoint_error_chained_under_the_refusal_holds_no_request_text_either(client: LLMClient) -> None:
    with pytest.raises(LLMRefusedError) as caught:
        client.chat([{"role": "user", "content": SECRET_TEXT}])
    cause = caught.value.__cause__
    assert cause is not None and "too long for the proxy" in str(cause)
    assert "plasma" not in str(cause) and _shared_runs(str(cause), SECRET_TEXT) == []


def _judge_refusal(extra: str) -> LLMRefusedError:
    def refuse(body: dict[str, Any]) -> Reply:
        raise HttpError(400, f"refused ({extra}): " + json.dumps(body))

    with FakeOpenAI(refuse) as fake:
        settings = load_role_settings(
            "judge", base_url=fake.base_url, model="fake", api_key="k", retry_base_s=0.0, max_retries=0
        )
        llm = LLMClient(settings, cache=None, ledger=UsageLedger())
        try:
            llm.chat([{"role": "user", "content": SECRET_TEXT}])
        except LLMRefusedError as exc:
            return exc
        finally:
            llm.close()
    raise AssertionError("the fake endpoint did not refuse")


def test_the_debug_log_keeps_a_judge_failures_frames_but_not_its_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli.debug_log import WITHHELD, record_traceback

    monkeypatch.setenv("COLABENCH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("COLABENCH_DEBUG", "0")
    judge_error = _judge_refusal("zqxgoldprobe")
    assert judge_error.carries_gold and "zqxgoldprobe" in str(judge_error)
    path = record_traceback(judge_error)
    assert path is not None
    log = Path(path).read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in log and "client.py" in log and "LLMRefusedError" in log
    assert WITHHELD in log and "zqxgoldprobe" not in log and "plasma" not in log
    # an answerer's failure is not gold: its (request-free) message stays in the log
    answerer_error = LLMRefusedError("role 'answerer': refused with HTTP 400: zqxpublicnote")
    answerer_error.role = "answerer"
    assert not answerer_error.carries_gold
    record_traceback(answerer_error)
    assert "zqxpublicnote" in Path(path).read_text(encoding="utf-8")


def test_the_debug_log_writes_a_chained_validation_error_without_its_input_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pydantic import ValidationError

    from cli.debug_log import record_traceback
    from graph.events import ItemCreated
    from ingest.errors import InputError, Problem

    monkeypatch.setenv("COLABENCH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("COLABENCH_DEBUG", "0")
    record = {"item_id": "i", "profile_id": 3, "reference_answer": "zqx" + "goldprobe answer"}  # not in a source line
    try:
        try:
            ItemCreated.model_validate(record)
        except ValidationError as invalid:
            raise InputError([Problem("items.jsonl", 1, "profile_id", "not a string")]) from invalid
    except InputError as exc:
        path = record_traceback(exc)
    assert path is not None
    log = Path(path).read_text(encoding="utf-8")
    assert "ValidationError" in log and "profile_id" in log and "Traceback (most recent call last)" in log
    assert "zqxgoldprobe" not in log


def test_an_echo_cut_by_the_scan_limit_leaves_no_tail_of_request_words() -> None:
    from agents.llm.error_text import MAX_SCANNED_CHARS

    content = " ".join(f"word{i}" for i in range(8000))  # longer than the scanned part
    request = {"messages": [{"role": "user", "content": content}]}
    for shift in range(6):  # wherever the cut falls inside a word or between words
        kept = without_request_text("x" * shift + " echo: " + content, request)
        assert kept.rstrip().endswith(REMOVED), kept[-80:]
        assert len(kept) < MAX_SCANNED_CHARS
