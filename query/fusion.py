"""Reciprocal rank fusion (Cormack et al., 2009) with equal channel weights.

s(d) = sum over channels c of 1[d in L_c] / (kappa + rank_c(d)), ranks from 1; a document counts once per
channel (its first position), so a list with repeats cannot vote twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Fused:
    """One fused id: its RRF score and its rank in every channel that listed it."""

    item_id: str
    score: float
    channel_ranks: dict[str, int] = field(default_factory=dict)


def channel_ranks(ranked: Sequence[str]) -> dict[str, int]:
    """id -> its first rank (from 1) in one channel's list."""
    ranks: dict[str, int] = {}
    for position, item_id in enumerate(ranked, start=1):
        ranks.setdefault(item_id, position)
    return ranks


def fuse_rrf(lists: Mapping[str, Sequence[str]], kappa: float) -> list[Fused]:
    """Fuse channel lists (name -> ids in rank order) into one list, best first.

    Ties on score are broken by the best single-channel rank, then by the order channels are given,
    then by id, so the order is deterministic."""
    if kappa <= 0:
        raise ValueError(f"kappa must be > 0, got {kappa}")
    order = list(lists)
    per_channel = {name: channel_ranks(ids) for name, ids in lists.items()}
    ids: dict[str, None] = {}
    for name in order:
        for item_id in per_channel[name]:
            ids[item_id] = None
    fused = []
    for item_id in ids:
        ranks = {name: per_channel[name][item_id] for name in order if item_id in per_channel[name]}
        score = sum(1.0 / (kappa + rank) for rank in ranks.values())
        fused.append(Fused(item_id, score, ranks))

    def key(item: Fused) -> tuple[float, int, int, str]:
        best = min(item.channel_ranks.values())
        first_channel = min(order.index(name) for name, rank in item.channel_ranks.items() if rank == best)
        return (-item.score, best, first_channel, item.item_id)

    return sorted(fused, key=key)


def fuse_channels(lists: Mapping[str, Sequence[tuple[str, float]]], kappa: float) -> list[Fused]:
    """Channel lists (name -> (id, score) in rank order) as one list, best first: a single channel keeps its
    own order and scores; several are fused with RRF (`fuse_rrf`)."""
    if len(lists) == 1:
        ((name, ranked),) = lists.items()
        return [Fused(item_id, score, {name: rank}) for rank, (item_id, score) in enumerate(ranked, start=1)]
    return fuse_rrf({name: [item_id for item_id, _ in ranked] for name, ranked in lists.items()}, kappa)
