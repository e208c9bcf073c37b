"""Shared personal background across tasks (paper App. C.3): tasks grouped by profile x the exact set of facts
their answer requirements use. The paper reports the number of groups, the groups that involve at least two
distinct reference (support) documents, and the tasks those groups cover (98 groups over 349 tasks; 60 groups
with >= 2 documents covering 311 tasks, 89.1%). The paper gives no per-method accuracy on these groups, so
neither does this analysis. Computed from the graph alone (no LLM)."""

from __future__ import annotations

from collections.abc import Sequence

from neo4j import Driver
from pydantic import BaseModel

from graph.cypher_files import load_cypher

# Groups with at least this many distinct reference documents ask different rules of one background.
MIN_DOCUMENTS = 2


class ItemBackground(BaseModel):
    item_id: str
    profile_id: str
    fact_ids: list[str]
    support_doc_ids: list[str]


class BackgroundGroup(BaseModel):
    """Tasks of one profile that use exactly the same facts."""

    profile_id: str
    fact_ids: list[str]
    item_ids: list[str]
    doc_ids: list[str]

    @property
    def n_documents(self) -> int:
        return len(self.doc_ids)


class SharedBackground(BaseModel):
    n_items: int
    n_groups: int
    n_groups_multi_document: int  # groups whose tasks involve >= MIN_DOCUMENTS distinct reference documents
    n_items_multi_document: int  # tasks in those groups
    share_items_multi_document: float | None
    n_groups_multi_task: int  # groups of >= 2 tasks (beyond the paper: how many backgrounds are reused at all)
    n_items_without_facts: int  # tasks using no fact: grouped by profile x the empty set
    groups: list[BackgroundGroup]


def group_shared_background(items: Sequence[ItemBackground]) -> SharedBackground:
    """Group tasks by (profile, exact fact set); groups listed largest first, then by profile and facts."""
    by_key: dict[tuple[str, tuple[str, ...]], list[ItemBackground]] = {}
    for item in items:
        by_key.setdefault((item.profile_id, tuple(sorted(set(item.fact_ids)))), []).append(item)
    groups = [
        BackgroundGroup(
            profile_id=profile,
            fact_ids=list(facts),
            item_ids=sorted(i.item_id for i in members),
            doc_ids=sorted({d for i in members for d in i.support_doc_ids}),
        )
        for (profile, facts), members in by_key.items()
    ]
    groups.sort(key=lambda g: (-len(g.item_ids), -g.n_documents, g.profile_id, g.fact_ids))
    multi = [g for g in groups if g.n_documents >= MIN_DOCUMENTS]
    covered = sum(len(g.item_ids) for g in multi)
    return SharedBackground(
        n_items=len(items),
        n_groups=len(groups),
        n_groups_multi_document=len(multi),
        n_items_multi_document=covered,
        share_items_multi_document=(covered / len(items)) if items else None,
        n_groups_multi_task=sum(1 for g in groups if len(g.item_ids) >= 2),
        n_items_without_facts=sum(1 for i in items if not i.fact_ids),
        groups=groups,
    )


def load_item_backgrounds(driver: Driver, database: str, item_ids: Sequence[str]) -> list[ItemBackground]:
    """Profile, requirement facts and support documents of each item (items not in the graph are skipped)."""
    with driver.session(database=database) as session:
        records = session.run(load_cypher("analyses/shared_background_items"), item_ids=list(item_ids))
        return [ItemBackground(**dict(r)) for r in records]


def shared_background(driver: Driver, database: str, item_ids: Sequence[str]) -> SharedBackground:
    return group_shared_background(load_item_backgrounds(driver, database, item_ids))
