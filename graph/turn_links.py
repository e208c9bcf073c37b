"""The NEXT links of one TurnAppended statement, planned in Python: the statement seeks each session once (not
each turn), looks up the session's earlier turns once, before it creates the new ones, and links new turns to
each other by position (bench/bench_event_store.py: seeks per turn halved the turn projection's rate).

A NEXT link joins turns of a session whose ordinals differ by one; the turn whose event comes later (higher
seq) makes it and gives it its seq, so the graph is the same whatever the batch boundaries. Links between two
turns of the same statement are listed here (`pairs`, positions in the session's `members`); links to turns
projected earlier are found by one ordinal-range lookup per session.
"""

from __future__ import annotations

from typing import Any


def plan_turn_links(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Extra parameters of projection/TurnAppended for `rows` (in seq order): `sessions`, one entry per session
    in order of first appearance: {session_id, members (positions in `rows`, in seq order), turn_ids (theirs),
    pairs [{a, b, seq}] (links a -> b, positions in `members`), lo, hi, max_seq (the earlier turns to look up:
    ordinals lo..hi, seq below max_seq)}."""
    members: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        members.setdefault(row["session_id"], []).append(i)
    sessions = []
    for session_id, idx in members.items():
        ordinals = [int(rows[i]["ordinal"]) for i in idx]
        seqs = [rows[i]["seq"] for i in idx]
        at_ordinal: dict[int, list[int]] = {}
        for position, ordinal in enumerate(ordinals):
            at_ordinal.setdefault(ordinal, []).append(position)
        pairs = [
            {"a": a, "b": b, "seq": max(seqs[a], seqs[b])}
            for ordinal, earlier in at_ordinal.items()
            for b in at_ordinal.get(ordinal + 1, ())
            for a in earlier
        ]
        sessions.append(
            {
                "session_id": session_id,
                "members": idx,
                "turn_ids": [rows[i]["turn_id"] for i in idx],
                "pairs": pairs,
                "lo": min(ordinals) - 1,
                "hi": max(ordinals) + 1,
                "max_seq": max(seqs),
            }
        )
    return {"sessions": sessions}
