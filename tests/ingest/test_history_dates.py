"""One reader for every time a history keeps: ISO 8601 (zone kept), LoCoMo's and LongMemEval's session dates
(as written), nothing else; the adapters' ISO forms come from it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from ingest.adapters.locomo import parse_date as locomo_iso
from ingest.adapters.longmemeval import parse_date as longmemeval_iso
from ingest.history_dates import parse_history_time


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56)),
        ("12:09 am on  13 September,\n2023", datetime(2023, 9, 13, 0, 9)),  # midnight hour, loose whitespace
        ("2023/05/30 (Tue) 23:40", datetime(2023, 5, 30, 23, 40)),
        ("2024-01-02T03:04:05Z", datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2024-01-02T03:04:05+02:00", datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))),
        ("2024-01-02", datetime(2024, 1, 2)),
    ],
)
def test_every_stored_date_form_reads_to_its_instant(text: str, expected: datetime) -> None:
    assert parse_history_time(text) == expected


@pytest.mark.parametrize("text", [None, "", "   ", "sometime last spring", "13:56 pm on 8 May, 2023", "8 May 2023"])
def test_a_missing_or_unknown_form_reads_as_none(text: str | None) -> None:
    assert parse_history_time(text) is None


def test_the_adapters_iso_forms_agree_with_the_shared_reader() -> None:
    assert locomo_iso("1:56 pm on 8 May, 2023") == "2023-05-08T13:56:00"
    assert longmemeval_iso("2023/05/30 (Tue) 23:40") == "2023-05-30T23:40:00"
    assert locomo_iso("2023/05/30 (Tue) 23:40") is None and longmemeval_iso("1:56 pm on 8 May, 2023") is None
