"""The shape of a dataset: how many profiles carry items, items per profile, the single- vs multi-fact mix,
support documents per item and augmented items per initial one; the paper's shape (App. A.2, Sec. 3.7) as the
default target; and the warnings `check` gives before a run when the shape makes analyses uninformative.

The paper (10 profiles, 349 items, 1,015 requirements) states about a third of its items as single-fact and one
support document per item; it does not state how many items are augmented, so the target's augmentation ratio
(one augmented item per initial item) is ours.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

# Fewer profiles than this: the cluster bootstrap over profiles (the paper's intervals) has too few clusters.
MIN_PROFILES_FOR_INTERVALS = 5
# The most support documents per item a synthesis builds (each is read whole by the History Gate's blind solver).
MAX_SUPPORT_DOCS = 5


class ShapeTarget(BaseModel):
    """What a synthesis aims at; the defaults are the paper's proportions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profiles: int = Field(default=10, ge=1, le=10_000, description="profiles with items (paper: 10)")
    items_per_profile: float = Field(default=34.9, gt=0, le=10_000, description="items per profile (paper: 349/10)")
    single_fact_share: float = Field(default=1 / 3, ge=0, le=1, description="share of single-fact items (paper: ~1/3)")
    support_docs_per_item: int = Field(
        default=1, ge=1, le=MAX_SUPPORT_DOCS, description="support documents per item (paper: 1)"
    )
    augmented_per_initial: float = Field(
        default=1.0, ge=0, le=5, description="augmented items per initial item (not stated in the paper; ours)"
    )

    def initial_per_profile(self) -> int:
        """Initial items (one per topic) a profile needs for `items_per_profile` with the augmentation ratio."""
        return max(1, math.ceil(self.items_per_profile / (1 + self.augmented_per_initial)))

    def initial_single_share(self) -> float:
        """The share of initial items to build single-fact: augmented items always combine two or more facts,
        so all single-fact items are initial ones."""
        return min(1.0, self.single_fact_share * (1 + self.augmented_per_initial))

    def reachable(self) -> list[str]:
        """Why the target cannot be met by construction (empty when it can)."""
        if self.single_fact_share * (1 + self.augmented_per_initial) > 1 + 1e-9:
            most = 1 / (1 + self.augmented_per_initial)
            return [
                f"a single-fact share of {self.single_fact_share:.2f} needs more single-fact items than there are "
                f"initial items: with {self.augmented_per_initial:g} augmented per initial item (augmented items "
                f"combine two or more facts) at most {most:.2f} can be single-fact"
            ]
        return []


@dataclass(frozen=True)
class ItemShape:
    profile_id: str
    batch: str | None
    n_facts: int
    n_support: int


@dataclass(frozen=True)
class Shape:
    profiles: int
    items: int
    items_per_profile: float
    single_fact_share: float
    support_docs_per_item: float
    augmented_per_initial: float | None
    initial: int
    augmented: int
    single_fact: int

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "profiles": self.profiles,
            "items": self.items,
            "items_per_profile": round(self.items_per_profile, 3),
            "single_fact_share": round(self.single_fact_share, 4),
            "support_docs_per_item": round(self.support_docs_per_item, 3),
            "augmented_per_initial": None
            if self.augmented_per_initial is None
            else round(self.augmented_per_initial, 3),
            "initial": self.initial,
            "augmented": self.augmented,
            "single_fact": self.single_fact,
        }


def shape_of(items: Iterable[ItemShape]) -> Shape:
    rows = list(items)
    profiles = {r.profile_id for r in rows}
    augmented = sum(1 for r in rows if r.batch == "augmented")
    initial = len(rows) - augmented
    single = sum(1 for r in rows if r.n_facts == 1)
    n = len(rows)
    return Shape(
        profiles=len(profiles),
        items=n,
        items_per_profile=n / len(profiles) if profiles else 0.0,
        single_fact_share=single / n if n else 0.0,
        support_docs_per_item=sum(r.n_support for r in rows) / n if n else 0.0,
        augmented_per_initial=augmented / initial if initial else None,
        initial=initial,
        augmented=augmented,
        single_fact=single,
    )


def compare(shape: Shape, target: ShapeTarget) -> list[dict[str, object]]:
    """Rows (measure, target, produced) for the synthesis report."""
    return [
        {"measure": "profiles with items", "target": target.profiles, "produced": shape.profiles},
        {"measure": "items", "target": round(target.profiles * target.items_per_profile), "produced": shape.items},
        {
            "measure": "items per profile",
            "target": round(target.items_per_profile, 2),
            "produced": round(shape.items_per_profile, 2),
        },
        {
            "measure": "single-fact share",
            "target": round(target.single_fact_share, 3),
            "produced": round(shape.single_fact_share, 3),
        },
        {
            "measure": "support documents per item",
            "target": target.support_docs_per_item,
            "produced": round(shape.support_docs_per_item, 2),
        },
        {
            "measure": "augmented per initial item",
            "target": round(target.augmented_per_initial, 2),
            "produced": None if shape.augmented_per_initial is None else round(shape.augmented_per_initial, 2),
        },
    ]


def shape_warnings(shape: Shape) -> list[str]:
    """What makes a run's analyses uninformative, said before the run (empty when nothing does)."""
    out: list[str] = []
    if shape.profiles < MIN_PROFILES_FOR_INTERVALS:
        out.append(
            f"only {shape.profiles} profile(s) have items: the confidence intervals are a cluster bootstrap over "
            f"profiles and are uninformative with fewer than {MIN_PROFILES_FOR_INTERVALS} (the paper has 10)"
        )
    if shape.items and (shape.single_fact == 0 or shape.single_fact == shape.items):
        kind = "multi-fact" if shape.single_fact == 0 else "single-fact"
        out.append(
            f"every item is {kind}: the single- vs multi-fact comparison has no other group (the paper: about a "
            "third single-fact)"
        )
    return out
