"""The times a history keeps, read back: the adapters store a session's date as the dataset wrote it (LoCoMo
"1:56 pm on 8 May, 2023", LongMemEval "2023/05/30 (Tue) 23:40"), bundles and the synthesizer ISO 8601. One
reader for all of them, so every consumer (the adapters' `started_at_iso`, the memory systems' pair times)
reads a date the same way."""

from __future__ import annotations

from datetime import datetime

LOCOMO_DATE_FORMAT = "%I:%M %p on %d %B, %Y"  # "1:56 pm on 8 May, 2023"
LONGMEMEVAL_DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"  # "2023/05/30 (Tue) 23:40"
DATASET_DATE_FORMATS = (LOCOMO_DATE_FORMAT, LONGMEMEVAL_DATE_FORMAT)


def parse_dataset_date(text: str | None, fmt: str) -> datetime | None:
    """A date written in one dataset's format (runs of whitespace count as one space), else None."""
    if not text:
        return None
    try:
        return datetime.strptime(" ".join(text.split()), fmt)
    except ValueError:
        return None


def parse_history_time(text: str | None) -> datetime | None:
    """A history time in any form the project stores: ISO 8601 (a trailing Z allowed; the zone kept when
    given), a LoCoMo or a LongMemEval session date (no zone). None when absent or in none of these forms."""
    if not text or not text.strip():
        return None
    try:
        return datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        pass
    for fmt in DATASET_DATE_FORMATS:
        found = parse_dataset_date(text, fmt)
        if found is not None:
            return found
    return None
