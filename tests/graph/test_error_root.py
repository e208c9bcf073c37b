"""One error root: every expected failure is a ColabenchError shown as one message; anything else is a bug and
keeps its traceback (the CLI used to treat every ValueError as expected)."""

from __future__ import annotations

import itertools

import pytest

from cli.context import expected_errors
from graph.errors import ColabenchError, GraphError, UsageError


def test_every_rooms_error_root_is_a_colabench_error() -> None:
    from agents.adjudication.errors import AdjudicationError
    from agents.judging.registry import UnknownJudgeError
    from agents.llm.errors import LLMError
    from agents.memory.errors import MemorySystemError
    from agents.methods.registry import UnknownMethodError
    from agents.prompts.template import PromptError
    from api.errors import ApiError
    from api.report_view import ReportDataError
    from ingest.errors import InputError
    from query.errors import QueryError, UnknownIdError, UnknownProfileError

    roots = [
        GraphError,
        UsageError,
        InputError,
        QueryError,
        LLMError,
        MemorySystemError,
        ApiError,
        PromptError,
        UnknownJudgeError,
        UnknownMethodError,
        ReportDataError,
        AdjudicationError,
    ]
    assert all(issubclass(root, ColabenchError) for root in roots)
    assert issubclass(UnknownProfileError, UnknownIdError)  # the API maps this type to not-found


def test_an_expected_error_is_one_message_and_a_bug_keeps_its_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    @expected_errors
    def refused() -> None:
        raise UsageError("no batch 'x' in the graph")

    @expected_errors
    def buggy() -> None:
        raise ValueError("an internal invariant broke")

    with pytest.raises(SystemExit) as stopped:
        refused()
    assert stopped.value.code == 1
    assert "error: no batch 'x' in the graph" in capsys.readouterr().err
    with pytest.raises(ValueError, match="internal invariant"):
        buggy()


def test_a_memory_sdks_wrapped_refusal_is_not_retryable_and_a_wrapped_outage_is() -> None:
    from agents.llm.errors import LLMRefusedError
    from agents.memory.errors import MemoryBackendError, retryable_cause

    class SdkError(Exception):
        pass

    class HttpStatusError(Exception):
        status_code = 400

    refused = LLMRefusedError("HTTP 400 refused")
    assert retryable_cause(_chain(MemoryBackendError("add() failed"), SdkError("x"), refused)) is False
    assert retryable_cause(_chain(MemoryBackendError("add() failed"), HttpStatusError("400"))) is False
    assert retryable_cause(_chain(MemoryBackendError("add() failed"), TimeoutError("slow"))) is True


def _chain(*errors: BaseException) -> BaseException:
    """errors[0] raised from errors[1] raised from errors[2] ..."""
    for outer, inner in itertools.pairwise(errors):
        outer.__cause__ = inner
    return errors[0]
