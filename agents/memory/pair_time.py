"""A pair's time as each memory SDK takes it. The history keeps times as the dataset wrote them (ISO 8601, or a
LoCoMo / LongMemEval session date: ingest.history_dates reads them all); each SDK wants its own form:
Graphiti an aware datetime, A-MEM `YYYYMMDDHHMM`, Mem0 an ISO 8601 `created_at` (as its own default,
`datetime.now(timezone.utc).isoformat()`); LangMem's memories record it as `created_at`. A time with no
zone is taken as UTC. A pair with a time that none of the forms reads fails loudly, never as "unknown"."""

from __future__ import annotations

from datetime import UTC, datetime

from agents.memory.errors import MemoryBackendError
from agents.memory.pairs import HistoryPair
from ingest.history_dates import parse_history_time


def pair_time(system: str, pair: HistoryPair) -> datetime | None:
    """When the pair happened (aware; UTC when the history gives no zone), None when the history has no time.
    MemoryBackendError naming the system, pair and text when the time is in no known form."""
    if not pair.at or not pair.at.strip():
        return None
    at = parse_history_time(pair.at)
    if at is None:
        raise MemoryBackendError(
            f"{system}: pair {pair.pair_id}: its time {pair.at!r} is neither ISO 8601 nor a LoCoMo session date "
            "nor a LongMemEval one"
        )
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def amem_timestamp(system: str, pair: HistoryPair) -> str:
    """A-MEM's note time, `YYYYMMDDHHMM` (the format its `add_note` writes for now), in the pair's own clock;
    `unknown` only when the history has no time (A-MEM would otherwise stamp the build's time)."""
    at = pair_time(system, pair)
    return "unknown" if at is None else at.strftime("%Y%m%d%H%M")


def iso_created_at(system: str, pair: HistoryPair) -> str | None:
    """The pair's time as ISO 8601 with its offset (UTC when none given), as Mem0 writes `created_at`."""
    at = pair_time(system, pair)
    return None if at is None else at.isoformat()
