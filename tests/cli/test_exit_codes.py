"""One exit-code scheme for every command (cli/exit_codes.py): 2 bad input, 3 an endpoint failure or a result
that ended empty. On the real Neo4j with the `mini` bundle and the fake OpenAI server: a memory build whose
requests the endpoint refuses exits 3 (as `run` does), a memory build that ends with no memories exits 3, and
a synthesis export of a bundle without items exits 3 instead of "check: ok"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.llm.errors import LLMConfigError, LLMOutputError, LLMRefusedError, LLMUnavailableError
from agents.memory.errors import MemoryBackendError
from agents.methods import UnknownMethodError
from cli.exit_codes import EXIT_BAD_INPUT, EXIT_ENDPOINT_OR_PARTIAL, EXIT_ERROR, exit_code_for
from graph.errors import BadInputError, UsageError
from graph.store import EventStore
from ingest.errors import InputError, Problem
from tests.cli.test_run_and_report_processes import cli_env, colabench
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.mem0_script import is_mem0_extraction
from tests.fake_openai.server import HttpError
from tests.fake_openai.synthesis_script import SynthesisPolicy


def _wrapped(cause: BaseException) -> MemoryBackendError:
    try:
        raise MemoryBackendError("A-MEM: the SDK call failed") from cause
    except MemoryBackendError as exc:
        return exc


def test_each_expected_error_maps_to_its_exit_code() -> None:
    assert exit_code_for(InputError([Problem("x.jsonl", 3, "id", "missing")])) == EXIT_BAD_INPUT
    assert exit_code_for(LLMRefusedError("refused")) == EXIT_ENDPOINT_OR_PARTIAL
    assert exit_code_for(LLMUnavailableError("down")) == EXIT_ENDPOINT_OR_PARTIAL
    assert exit_code_for(LLMOutputError("not JSON")) == EXIT_ENDPOINT_OR_PARTIAL
    assert exit_code_for(_wrapped(LLMRefusedError("400"))) == EXIT_ENDPOINT_OR_PARTIAL  # an SDK wrapping it
    assert exit_code_for(MemoryBackendError("no encoder")) == EXIT_ERROR
    assert exit_code_for(LLMConfigError("no model")) == EXIT_ERROR
    assert exit_code_for(UsageError("role 'judge' has no LLM endpoint")) == EXIT_ERROR
    assert exit_code_for(BadInputError("unknown run id(s) ['x']")) == EXIT_BAD_INPUT  # the command line's fault
    assert exit_code_for(UnknownMethodError("unknown method 'FOO'")) == EXIT_BAD_INPUT


def refusing(body: dict[str, Any]) -> Reply:
    raise HttpError(400, "the memory model refuses this request (scripted)")


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config")
def test_memory_build_refused_by_the_endpoint_exits_3_like_run(mini_store: EventStore, tmp_path: Path) -> None:
    with FakeOpenAI(refusing) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model",
                      COLABENCH_LLM_CACHE=str(tmp_path / "cache.sqlite"))
        done = colabench(["memory", "build", "--system", "amem", "--profile", "mini-p-ravi", "--no-links"], env)
    assert done.returncode == EXIT_ENDPOINT_OR_PARTIAL, done.stdout + done.stderr
    assert "refuses this request" in " ".join(done.stderr.split())


def extracting_nothing(body: dict[str, Any]) -> Reply:
    if not is_mem0_extraction(body):
        raise HttpError(400, "only Mem0 extraction is scripted here")
    return Reply.json({"memory": []})  # a well-formed reply that finds nothing worth keeping


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config")
def test_memory_build_that_ends_with_no_memories_exits_3(mini_store: EventStore, tmp_path: Path) -> None:
    with FakeOpenAI(extracting_nothing) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model",
                      COLABENCH_LLM_CACHE=str(tmp_path / "cache.sqlite"))
        done = colabench(["memory", "build", "--system", "mem0", "--profile", "mini-p-ravi", "--no-links"], env)
    assert done.returncode == EXIT_ENDPOINT_OR_PARTIAL, done.stdout + done.stderr
    said = " ".join(done.stderr.split())
    assert "(Mem0) holds no memory of profile 'mini-p-ravi'" in said and "answer from nothing" in said


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config")
def test_memory_build_that_leaves_memories_exits_0(mini_store: EventStore, tmp_path: Path) -> None:
    done = colabench(["memory", "build", "--system", "raw_turns", "--profile", "mini-p-ravi", "--no-links"],
                     cli_env(tmp_path))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config")
def test_synthesis_that_ends_with_a_bundle_without_items_exits_3_never_ok(
    sample_store: EventStore, tmp_path: Path
) -> None:
    # Stage I alone accepts profiles but makes no items: the bundle it exports is empty of what `run` reads.
    with FakeOpenAI(SynthesisPolicy()) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model",
                      COLABENCH_LLM_CACHE=str(tmp_path / "cache.sqlite"))
        args = ["synth", "profiles", "--dataset", "syn-empty", "--profiles", "1", "--out", str(tmp_path / "b")]
        done = colabench(args, env, timeout=400)
    assert done.returncode == EXIT_ENDPOINT_OR_PARTIAL, done.stdout + done.stderr
    assert "the bundle holds no items" in done.stderr
    assert "check: ok" not in done.stdout
