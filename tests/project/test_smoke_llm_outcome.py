"""`make smoke-llm` reports each step (scripts/smoke_llm_outcome.py): a step whose only failures are requests the
client refused locally for the server's context is "ok; skipped ROLE: context N < request M" with both sizes,
read from the client's own refusal text; any other failure keeps it "errors", a crash is "FAILED"."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from agents.llm.context_size import oversized_text
from tests.paths import REPO

SCRIPT = REPO / "scripts" / "smoke_llm_outcome.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("smoke_llm_outcome", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def refusal(role: str, tokens: int) -> str:
    # as the run prints a failure: indented, and wrapped by the terminal
    text = oversized_text(role, "http://127.0.0.1:8080/v1", tokens, 8192)
    cut = text.index(" ", 70)
    return "  " + text[:cut] + "\n" + text[cut + 1 :] + "\n"


def test_a_step_refused_only_for_its_context_is_skipped_with_both_sizes() -> None:
    output = (
        "endpoint errors (this invocation, per role): judge 2\n" + refusal("judge", 9_100) + refusal("judge", 10_234)
    )
    line = load().outcome("run", 3, output)
    assert (
        line == "ok       run; skipped judge: context 8,192 < request 10,234 (2 request(s) refused locally, not sent)"
    )


def test_another_failure_beside_a_refusal_keeps_the_step_in_errors() -> None:
    output = refusal("memory", 8_788) + "role 'answerer': http://h/v1 (model 'm') kept failing: HTTP 500 after 7"
    line = load().outcome("run", 3, output)
    assert line.startswith("errors   run (exit 3: other failures ('kept failing')")
    assert "also skipped memory: context 8,192 < request 8,788" in line


def test_exit_codes_other_than_3_are_ok_or_failed() -> None:
    module = load()
    assert module.outcome("run", 0, refusal("judge", 9_000)) == "ok       run"
    assert module.outcome("synth", 1, "") == "FAILED   synth (exit 1)"
    assert module.outcome("run", 3, "some attempts failed") == "errors   run (exit 3: other failures (see above))"


def test_the_server_part_gives_the_steps_wall_time_and_what_the_server_did() -> None:
    before = {"requests": 2, "prompt": 100, "cached": 0, "predicted": 10}
    after = {"requests": 5, "prompt": 400, "cached": 300, "predicted": 70}
    assert load().server_part(12.4, before, after) == (
        "[12 s; server: 3 completions, 600 prompt tokens, prefix cache 50%, 60 generated]"
    )
