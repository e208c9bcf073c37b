"""The NEXT links of one TurnAppended statement, planned in Python so that the statement seeks the graph once
per session instead of twice per turn (bench/bench_event_store.py: the two seeks per turn halved the turn
projection's rate).

A NEXT link joins turns of a session whose ordinals differ by one; the turn whose event comes later (higher
seq) makes it and gives it its seq, so the graph is the same whatever the batch boundaries. Links between two
turns of the same statement are listed here (`pairs`, positions in `rows`); links to turns projected earlier
are found by one range lookup per session of the statement (`sessions`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def plan_turn_links(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Extra parameters of projection/TurnAppended for `rows` (in seq order): `pairs` [{a, b, seq}] for
    links a -> b inside the statement, `sessions` [{session_id, lo, hi, max_seq, members}] for the lookups of
    earlier turns, `seqs` (the statement's seqs) and `min_seq`."""
    by_slot: dict[tuple[str, int], list[int]] = defaultdict(list)
    members: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        by_slot[(row["session_id"], int(row["ordinal"]))].append(i)
        members[row["session_id"]].append(i)
    pairs = []
    for (session_id, ordinal), earlier in by_slot.items():
        for b in by_slot.get((session_id, ordinal + 1), ()):
            for a in earlier:
                pairs.append({"a": a, "b": b, "seq": max(rows[a]["seq"], rows[b]["seq"])})
    sessions = []
    for session_id, idx in members.items():
        ordinals = [int(rows[i]["ordinal"]) for i in idx]
        sessions.append(
            {
                "session_id": session_id,
                "lo": min(ordinals) - 1,
                "hi": max(ordinals) + 1,
                "max_seq": max(rows[i]["seq"] for i in idx),
                "members": idx,
            }
        )
    seqs = [row["seq"] for row in rows]
    return {"pairs": pairs, "sessions": sessions, "seqs": seqs, "min_seq": min(seqs) if seqs else 0}
