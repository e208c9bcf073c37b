"""Verify the event log: gap-free seq, chained hashes, content ids that match their payloads."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from graph.hashing import GENESIS_HASH, chain_hash, content_event_id
from graph.stored_event import StoredEvent


@dataclass(frozen=True)
class VerifyReport:
    checked: int
    ok: bool
    first_broken_seq: int | None = None
    problem: str | None = None


def verify_chain(
    events: Iterable[StoredEvent], progress: Callable[[int], None] | None = None, expected_head: str | None = None
) -> VerifyReport:
    """Walk events in seq order and report the first broken link (None when the chain holds)."""
    prev_hash = GENESIS_HASH
    expected_seq = 1
    checked = 0
    for event in events:
        if event.seq != expected_seq:
            return VerifyReport(checked, False, expected_seq, f"seq {expected_seq} is missing (next is {event.seq})")
        if event.prev_hash != prev_hash:
            return VerifyReport(
                checked,
                False,
                event.seq,
                f"prev_hash of seq {event.seq} does not match the hash of seq {event.seq - 1}",
            )
        recomputed = chain_hash(prev_hash, event.chained_fields())
        if recomputed != event.hash:
            return VerifyReport(
                checked, False, event.seq, f"seq {event.seq} ({event.type}): stored hash does not match its content"
            )
        if content_event_id(event.type, event.payload) != event.event_id:
            return VerifyReport(
                checked, False, event.seq, f"seq {event.seq} ({event.type}): event_id does not match its payload"
            )
        prev_hash = event.hash
        expected_seq += 1
        checked += 1
        if progress and checked % 1000 == 0:
            progress(1000)
    if expected_head is not None and prev_hash != expected_head:
        return VerifyReport(
            checked, False, expected_seq, "the log head's hash does not match the last event (events lost at the end)"
        )
    return VerifyReport(checked, True)
