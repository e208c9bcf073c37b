"""The `llm` definition of time-aware query expansion, LongMemEval's own: an LLM reads the time range a
question points at, given the date it was asked (prompt `qa_time_range`, replaceable with `--prompt`). The
reply is validated (QuestionTimeRange and `range_problem`); an invalid one is re-asked with the problem by the
LLM client, and one still invalid after the re-asks is recorded as "no range" with status `invalid`, which
runs count. Endpoint failures propagate (the run stops and resumes later)."""

from __future__ import annotations

from datetime import date, datetime

from pydantic import BaseModel, ConfigDict, Field

from agents.llm.client import LLMClient
from agents.llm.errors import LLMOutputError
from agents.prompts.qa_reading import QA_TIME_RANGE
from agents.prompts.template import PromptTemplate, render_messages
from query.expansion.time_range import TimeRange, TimeRangeReader, TimeRangeReading


class QuestionTimeRange(BaseModel):
    """The reply: whether the question points at a period, and its first and last day (inclusive)."""

    model_config = ConfigDict(extra="forbid")
    has_range: bool
    start: date | None = None
    end: date | None = None
    reason: str = Field(default="", max_length=600)


def range_problem(reply: QuestionTimeRange, asked: date) -> str | None:
    """Why a parsed reply cannot be used (the re-ask says so), or None."""
    if not reply.has_range:
        return None
    if reply.start is None or reply.end is None:
        return "has_range is true, so start and end must both be dates (YYYY-MM-DD)"
    if reply.start > reply.end:
        return f"start {reply.start} is after end {reply.end}"
    if reply.start > asked:
        return f"the range starts on {reply.start}, after today ({asked}): conversations cannot lie there"
    return None


def llm_time_range_reader(llm: LLMClient, template: PromptTemplate = QA_TIME_RANGE) -> TimeRangeReader:
    """(question, asked) -> TimeRangeReading from `llm`; a range ending after the question's date is cut there."""

    def read(question: str, asked_at: datetime | date | None) -> TimeRangeReading:
        if asked_at is None:
            return TimeRangeReading(source="llm", status="no_date")
        asked = asked_at.date() if isinstance(asked_at, datetime) else asked_at
        messages = render_messages(template, asked_at=f"{asked.isoformat()} ({asked:%A})", question=question)
        try:
            reply = llm.structured(
                messages, QuestionTimeRange, name="question_time_range", check=lambda r: range_problem(r, asked)
            )
        except LLMOutputError as exc:
            return TimeRangeReading(source="llm", status="invalid", problem=str(exc)[-300:])
        value = reply.value
        if not value.has_range:
            return TimeRangeReading(source="llm", status="none")
        assert value.start is not None and value.end is not None  # range_problem accepted it
        found = TimeRange(start=value.start, end=min(value.end, asked), phrase=value.reason.strip()[:200] or "llm")
        return TimeRangeReading(source="llm", status="range", time_range=found)

    return read
