"""Time-aware query expansion: read a time range off the question (relative to the date it was asked) and
keep only the candidates whose session date falls inside it. LongMemEval reports +7 to +11 points of
temporal-reasoning recall from narrowing the search space this way.

Two definitions, named apart everywhere (`--time-aware rules|llm`, rows `+time(rules)` / `+time(llm)`):
`rules` (this module, no LLM) and `llm`, LongMemEval's own: an LLM reads the range off the question given
its date (agents.qa.time_range). Both give a `TimeRangeReading`; pruning is the same for both.

The `rules` range is read without an LLM: "N days/weeks/months/years ago", "yesterday", "last week/weekend/month/
year", "in the past/last N days/weeks/months", "this week/month/year", "in <Month> [<year>]" and
"on <Month> <day>" (the latest such date not after the question). Each range carries slack, because a
conversation about an event is dated when it took place, not when the event happened. A question without a
recognised expression is not narrowed; a range that would leave no candidate is dropped (and says so)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Literal

from pydantic import BaseModel

from query.errors import QueryError

TIME_AWARE = ("none", "rules", "llm")
_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple of": 2,
    "a couple of": 2,
    "few": 3,
    "a few": 3,
}
_NUMBER = r"(\d+|a couple of|couple of|a few|few|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
# Slack around an "N units ago" point: a fraction of the unit, at least two days.
_AGO_SLACK = {"day": 2, "week": 4, "month": 15, "year": 60}
_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))

_AGO = re.compile(rf"\b{_NUMBER}\s+(day|week|month|year)s?\s+ago\b", re.I)
_PAST = re.compile(rf"\b(?:in\s+)?(?:the\s+)?(?:past|last)\s+{_NUMBER}\s+(day|week|month|year)s?\b", re.I)
_LAST = re.compile(r"\blast\s+(weekend|week|month|year)\b", re.I)
_THIS = re.compile(r"\bthis\s+(week|month|year)\b", re.I)
_YESTERDAY = re.compile(r"\byesterday\b", re.I)
_ON_DAY = re.compile(rf"\b(?:on\s+)?({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", re.I)
_IN_MONTH = re.compile(rf"\b(?:in|during|of)\s+({_MONTH_RE})\b(?:\s+(\d{{4}}))?", re.I)


class TimeRange(BaseModel):
    """Sessions dated from `start` to `end` (inclusive) are kept; `phrase` is what the range was read from."""

    start: date
    end: date
    phrase: str

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end


class TimeRangeReading(BaseModel):
    """What one definition read off one question: `range` (narrow to `time_range`), `none` (the question
    points at no time), `no_date` (no question date to count from) or `invalid` (the LLM's replies stayed
    invalid after its re-asks: recorded as no range, and counted)."""

    source: Literal["rules", "llm"]
    status: Literal["range", "none", "no_date", "invalid"]
    time_range: TimeRange | None = None
    problem: str | None = None  # invalid: the last validation problem

    def details(self) -> dict[str, object]:
        """What an answer or a row records about the reading."""
        out: dict[str, object] = {"source": self.source, "status": self.status}
        if self.time_range is not None:
            out.update(
                start=self.time_range.start.isoformat(),
                end=self.time_range.end.isoformat(),
                phrase=self.time_range.phrase,
            )
        if self.problem:
            out["problem"] = self.problem
        return out

    def note(self, pruning_note: str | None) -> str:
        """The one-line note beside a ranked list."""
        if self.status == "invalid":
            return f"time range ({self.source}): the reply stayed invalid after re-asking; not narrowed"
        if self.status == "no_date":
            return f"time range ({self.source}): the question has no date; not narrowed"
        if self.time_range is None:
            return f"time range ({self.source}): the question points at no time; not narrowed"
        return f"time range ({self.source}): {(pruning_note or '').removeprefix('time range ')}"


# (question, when it was asked) -> the range it points at; `rules` below, `llm` in agents.qa.time_range
TimeRangeReader = Callable[[str, datetime | date | None], TimeRangeReading]


class TimeAwareError(QueryError):
    """An unknown time-aware definition was asked for."""


def check_time_aware(name: str | bool | None) -> str:
    """The definition name (`none`, `rules`, `llm`); raises TimeAwareError naming the choices."""
    value = (name or "none").strip().lower() if not isinstance(name, bool) else ("rules" if name else "none")
    if value not in TIME_AWARE:
        raise TimeAwareError(f"--time-aware must be one of {', '.join(TIME_AWARE)}, got {name!r}")
    return value


def read_time_range_by_rules(question: str, asked_at: datetime | date | None) -> TimeRangeReading:
    """The `rules` definition as a TimeRangeReader."""
    if asked_at is None:
        return TimeRangeReading(source="rules", status="no_date")
    found = infer_time_range(question, asked_at)
    return TimeRangeReading(source="rules", status="range" if found else "none", time_range=found)


def _count(text: str) -> int:
    text = text.lower()
    return int(text) if text.isdigit() else _NUMBER_WORDS[text]


def infer_time_range(question: str, asked_at: datetime | date | None) -> TimeRange | None:
    """The time range a question points at, or None (no recognised expression, or no question date)."""
    if asked_at is None:
        return None
    asked = asked_at.date() if isinstance(asked_at, datetime) else asked_at
    found = _AGO.search(question)
    if found:
        n, unit = _count(found.group(1)), found.group(2).lower()
        centre = asked - timedelta(days=n * _UNIT_DAYS[unit])
        slack = timedelta(days=max(_AGO_SLACK[unit], n * _UNIT_DAYS[unit] // 5))
        return TimeRange(start=centre - slack, end=min(asked, centre + slack), phrase=found.group(0))
    found = _PAST.search(question)
    if found:
        n, unit = _count(found.group(1)), found.group(2).lower()
        span = n * _UNIT_DAYS[unit] + _AGO_SLACK[unit]
        return TimeRange(start=asked - timedelta(days=span), end=asked, phrase=found.group(0))
    found = _YESTERDAY.search(question)
    if found:
        return TimeRange(start=asked - timedelta(days=2), end=asked, phrase=found.group(0))
    found = _LAST.search(question)
    if found:
        span = {"weekend": 10, "week": 15, "month": 62, "year": 731}[found.group(1).lower()]
        return TimeRange(start=asked - timedelta(days=span), end=asked, phrase=found.group(0))
    found = _THIS.search(question)
    if found:
        span = {"week": 8, "month": 32, "year": 366}[found.group(1).lower()]
        return TimeRange(start=asked - timedelta(days=span), end=asked, phrase=found.group(0))
    found = _ON_DAY.search(question)
    if found:
        month, day = _MONTHS[found.group(1).lower().rstrip(".")], int(found.group(2))
        when = _latest_date(asked, month, day, int(found.group(3)) if found.group(3) else None)
        if when is not None:
            # Talked about on the day or in the weeks after it.
            return TimeRange(
                start=when - timedelta(days=1), end=min(asked, when + timedelta(days=31)), phrase=found.group(0)
            )
    found = _IN_MONTH.search(question)
    if found:
        month = _MONTHS[found.group(1).lower()]
        year = int(found.group(2)) if found.group(2) else (asked.year if month <= asked.month else asked.year - 1)
        first = date(year, month, 1)
        last = date(year, month, calendar.monthrange(year, month)[1])
        return TimeRange(
            start=first - timedelta(days=3), end=min(asked, last + timedelta(days=15)), phrase=found.group(0)
        )
    return None


def _latest_date(asked: date, month: int, day: int, year: int | None) -> date | None:
    for candidate_year in [year] if year else [asked.year, asked.year - 1]:
        try:
            when = date(candidate_year, month, day)
        except ValueError:
            return None
        if year or when <= asked:
            return when
    return None


def prune_by_time(
    candidates: Sequence[str], dates: Mapping[str, date | None], time_range: TimeRange | None
) -> tuple[list[str], str | None]:
    """(the candidates inside the range, a note) — every candidate and a note saying why when there is no
    range or the range keeps none. A candidate without a date is kept (it cannot be placed)."""
    if time_range is None:
        return list(candidates), None
    kept = [c for c in candidates if dates.get(c) is None or time_range.contains(dates[c])]  # type: ignore[arg-type]
    if not kept:
        return list(candidates), f"time range {time_range.start}..{time_range.end} kept no candidate; not narrowed"
    return (
        kept,
        f"time range {time_range.start}..{time_range.end} from {time_range.phrase!r}: "
        f"{len(kept)} of {len(candidates)} kept",
    )


def parse_session_date(text: str | None) -> date | None:
    """A session date from ISO text (`2023-05-30T14:53:00`) or LongMemEval's `2023/05/30 (Tue) 14:53`."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text).date()
    except ValueError:
        pass
    found = re.match(r"(\d{4})/(\d{2})/(\d{2})", text)
    if found:
        try:
            return date(int(found.group(1)), int(found.group(2)), int(found.group(3)))
        except ValueError:
            return None
    return None
