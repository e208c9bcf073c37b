"""Look-ahead prefetch for the most asked provenance shape: an item's requirements with their statements, facts
and spans. One query fetches the whole subtree and primes the per-relation DataLoaders, so resolving it costs
one round trip instead of one per level (the loaders stay the source of truth for every other shape)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from strawberry.types.nodes import FragmentSpread, InlineFragment, SelectedField

from api.loaders import Loaders, Row


def selects(info: Any, name: str) -> bool:
    """True when the field being resolved selects the field `name` directly (through fragments too)."""
    pending: list[Any] = list(info.selected_fields)
    while pending:
        for child in pending.pop().selections:
            if isinstance(child, SelectedField) and child.name == name:
                return True
            if isinstance(child, (FragmentSpread, InlineFragment)):
                pending.append(child)
    return False


async def prefetch_item_requirements(loaders: Loaders, item_ids: list[str]) -> None:
    """Fetch the requirement subtree of these items in one query and prime the loaders with it."""
    if not item_ids:
        return
    rows = await loaders.reader.rows("prefetch/item_requirements", ids=item_ids)
    requirements: dict[str, list[Row]] = defaultdict(list)
    statements: dict[str, list[Row]] = {}
    facts: dict[str, list[Row]] = {}
    fact_turns: dict[str, list[Row]] = {}
    spans: dict[str, list[Row]] = {}
    sessions: dict[str, Row] = {}
    for row in rows:
        requirement = row["node"]
        requirements[row["key"]].append({"key": row["key"], "node": requirement})
        statements[requirement["id"]] = [{"node": s["turn"]} for s in row["statements"]]
        for statement in row["statements"]:
            if statement["session"] is not None:
                sessions[statement["session"]["id"]] = statement["session"]
        facts[requirement["id"]] = [{"node": f["fact"]} for f in row["facts"]]
        for fact in row["facts"]:
            fact_turns[fact["fact"]["id"]] = [{"node": t} for t in fact["disclosed"]]
        spans[requirement["id"]] = [{"rel": span} for span in row["spans"]]
    loaders.related("item_requirements").prime_many({i: requirements.get(i, []) for i in item_ids})
    loaders.related("requirement_statements").prime_many(statements)
    loaders.related("requirement_facts").prime_many(facts)
    loaders.related("fact_turns").prime_many(fact_turns)
    loaders.related("requirement_spans").prime_many(spans)
    loaders.node("session").prime_many(sessions)
