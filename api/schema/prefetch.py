"""Look-ahead prefetch for the most asked provenance shapes: an item with its profile, support and history documents
and requirement subtree (statements, facts, spans); a document with its exposures, supported items, grounded
requirements, related documents and line ranges; a profile with its facts (and the turns disclosing them),
sessions (and their turns), topics and items. One query fetches the node with the relations its selection asks
for and primes the per-relation DataLoaders, so a root lookup costs one round trip instead of one per relation
and level (the loaders stay the source of truth for every other shape, and answer exactly as before).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from strawberry.types.nodes import FragmentSpread, InlineFragment, SelectedField

from api.loaders import LineKey, Loaders, Row
from api.schema.document_lines import MAX_LINES
from api.schema.values import MAX_PAGE


def selected_fields(info: Any) -> list[SelectedField]:
    """The fields the field being resolved selects directly (through fragments too)."""
    return [child for field in info.selected_fields for child in _direct(field)]


def _direct(field: SelectedField) -> list[SelectedField]:
    """The fields a selected field selects directly (through fragments too)."""
    found: list[SelectedField] = []
    pending: list[Any] = [field]
    while pending:
        for child in pending.pop().selections:
            if isinstance(child, SelectedField):
                found.append(child)
            elif isinstance(child, (FragmentSpread, InlineFragment)):
                pending.append(child)
    return found


# GraphQL field of Item -> the flag of prefetch/items that fetches it.
_ITEM_PARTS = {
    "requirements": "requirements",
    "profile": "profile",
    "supportDocuments": "support",
    "historyDocuments": "history",
}


def item_parts(fields: list[SelectedField]) -> set[str]:
    """The parts of prefetch/items that a selection of Item fields asks for."""
    return {_ITEM_PARTS[field.name] for field in fields if field.name in _ITEM_PARTS}


async def prefetch_items(loaders: Loaders, item_ids: list[str], parts: set[str]) -> dict[str, Row]:
    """Fetch these items with the asked-for parts (`item_parts`) in one query, prime the loaders with them and
    return the item nodes found, by id."""
    if not item_ids:
        return {}
    flags = {flag: flag in parts for flag in _ITEM_PARTS.values()}
    rows = await loaders.reader.rows("prefetch/items", ids=item_ids, **flags)
    nodes = {row["key"]: row["node"] for row in rows}
    loaders.node("item").prime_many(nodes)
    if flags["profile"]:
        profiles = {row["node"]["profile_id"]: row["profile"] for row in rows if row["profile"] is not None}
        loaders.node("profile").prime_many(profiles)
    if flags["support"]:
        loaders.related("item_support_documents").prime_many(
            {row["key"]: [{"key": row["key"], "node": d} for d in row["support"]] for row in rows}
        )
    if flags["history"]:
        loaders.related("item_history_documents").prime_many(
            {row["key"]: [{"key": row["key"], "node": d} for d in row["history"]] for row in rows}
        )
    if flags["requirements"]:
        _prime_requirements(loaders, rows)
    return nodes


def _prime_requirements(loaders: Loaders, rows: list[Row]) -> None:
    requirements: dict[str, list[Row]] = defaultdict(list)
    statements: dict[str, list[Row]] = {}
    facts: dict[str, list[Row]] = {}
    fact_turns: dict[str, list[Row]] = {}
    spans: dict[str, list[Row]] = {}
    sessions: dict[str, Row] = {}
    for row in rows:
        for entry in row["requirements"]:
            requirement = entry["node"]
            requirements[row["key"]].append({"key": row["key"], "node": requirement})
            statements[requirement["id"]] = [{"node": s["turn"]} for s in entry["statements"]]
            for statement in entry["statements"]:
                if statement["session"] is not None:
                    sessions[statement["session"]["id"]] = statement["session"]
            facts[requirement["id"]] = [{"node": f["fact"]} for f in entry["facts"]]
            for fact in entry["facts"]:
                fact_turns[fact["fact"]["id"]] = [{"node": t} for t in fact["disclosed"]]
            spans[requirement["id"]] = [{"rel": span} for span in entry["spans"]]
    loaders.related("item_requirements").prime_many({row["key"]: requirements.get(row["key"], []) for row in rows})
    loaders.related("requirement_statements").prime_many(statements)
    loaders.related("requirement_facts").prime_many(facts)
    loaders.related("fact_turns").prime_many(fact_turns)
    loaders.related("requirement_spans").prime_many(spans)
    loaders.node("session").prime_many(sessions)


# GraphQL field of Document -> the flag of prefetch/documents that fetches it, and the loader it primes.
_DOCUMENT_PARTS = {
    "exposures": ("exposures", "document_exposures"),
    "supportsItems": ("supports", "document_supports"),
    "groundedRequirements": ("grounds", "document_grounds"),
    "related": ("related", "document_related"),
}


def document_parts(fields: list[SelectedField]) -> tuple[set[str], list[tuple[int, int]]]:
    """The parts of prefetch/documents that a selection of Document fields asks for, and the line ranges of
    its `lines` fields (valid ranges only: an invalid one is refused by its resolver before any loading)."""
    parts = {_DOCUMENT_PARTS[field.name][0] for field in fields if field.name in _DOCUMENT_PARTS}
    ranges = []
    for field in fields:
        if field.name == "lines":
            start, end = _int_argument(field, "startLine", 1), _int_argument(field, "endLine", 100)
            if start is not None and end is not None and 1 <= start <= end < start + MAX_LINES:
                ranges.append((start, end))
    return parts, ranges


def _int_argument(field: SelectedField, name: str, default: int) -> int | None:
    """An Int argument of a selected field: given through a variable (an int), written in the query (the literal's
    text) or left out (the default); None when it is neither."""
    value = field.arguments.get(name, default)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


async def prefetch_documents(
    loaders: Loaders, doc_ids: list[str], parts: set[str], ranges: list[tuple[int, int]]
) -> dict[str, Row]:
    """Fetch these documents with the asked-for parts and line ranges (`document_parts`) in one query, prime the
    loaders with them and return the document nodes found, by id."""
    if not doc_ids:
        return {}
    flags = {flag: flag in parts for flag, _ in _DOCUMENT_PARTS.values()}
    spans = [{"key": i, "start_line": start, "end_line": end} for i, (start, end) in enumerate(ranges)]
    rows = await loaders.reader.rows("prefetch/documents", ids=doc_ids, spans=spans, **flags)
    nodes = {row["key"]: row["node"] for row in rows}
    loaders.node("document").prime_many(nodes)
    for flag, loader in _DOCUMENT_PARTS.values():
        if flags[flag]:
            loaders.related(loader).prime_many(
                {row["key"]: [{"key": row["key"], **entry} for entry in _entries(flag, row)] for row in rows}
            )
    lines: dict[LineKey, Row | None] = {}
    for row in rows:
        for found in row["lines"]:
            start, end = ranges[found["key"]]
            lines[(row["key"], start, end)] = {"n_lines": found["n_lines"], "lines": found["lines"]}
    loaders.lines.prime_many(lines)
    return nodes


def _entries(flag: str, row: Row) -> list[dict[str, Any]]:
    """A relation's entries of a prefetch/documents row in the shape of its rel/ query's rows (`rel` and/or
    `node`)."""
    if flag == "exposures":
        return [{"rel": exposure} for exposure in row["exposures"]]
    if flag == "supports":
        return [{"node": item} for item in row["supports"]]
    return list(row[flag])  # grounds and related entries already hold `node` and `rel`


# Profile list fields prefetch/profiles fetches with nested turns: GraphQL field -> (its nested turns field, the
# flag and page-size parameters of those turns, the field's default `first`). A default that drifts from its
# resolver's only changes how much is prefetched: the loaders fetch whatever was not.
_PROFILE_NESTED = {
    "facts": ("disclosedIn", "fact_turns", "facts_first", 500),
    "sessions": ("turns", "session_turns", "sessions_first", 200),
}


def profile_parts(fields: list[SelectedField]) -> dict[str, Any]:
    """The flags and page sizes of prefetch/profiles that a selection of Profile fields asks for: facts (and their
    `disclosedIn`), sessions (and their `turns`), topics and items. Nested turns are fetched for as many facts or
    sessions as the field's `first` shows (none when that is not a valid page size: its resolver refuses it)."""
    parts: dict[str, Any] = {"topics": False, "items": False}
    for name, (_, turns, size, _) in _PROFILE_NESTED.items():
        parts.update({name: False, turns: False, size: 0})
    for field in fields:
        if field.name in parts and field.name not in _PROFILE_NESTED:
            parts[field.name] = True
        elif field.name in _PROFILE_NESTED:
            nested, turns, size, default = _PROFILE_NESTED[field.name]
            parts[field.name] = True
            first = _int_argument(field, "first", default)
            if first is not None and 0 <= first <= MAX_PAGE and any(f.name == nested for f in _direct(field)):
                parts[turns] = True
                parts[size] = max(parts[size], first)
    return parts


async def prefetch_profiles(loaders: Loaders, profile_ids: list[str], parts: dict[str, Any]) -> dict[str, Row]:
    """Fetch these profiles with the asked-for parts (`profile_parts`) in one query, prime the loaders with them and
    return the profile nodes found, by id."""
    if not profile_ids:
        return {}
    rows = await loaders.reader.rows("prefetch/profiles", ids=profile_ids, **parts)
    nodes = {row["key"]: row["node"] for row in rows}
    loaders.node("profile").prime_many(nodes)
    for name, (_, turns, _, _) in _PROFILE_NESTED.items():
        if not parts[name]:
            continue
        loaders.related(f"profile_{name}").prime_many(
            {row["key"]: [{"key": row["key"], "node": entry["node"]} for entry in row[name]] for row in rows}
        )
        loaders.related(turns).prime_many(
            {
                entry["node"]["id"]: [{"node": turn} for turn in entry["turns"]]
                for row in rows
                for entry in row[name]
                if entry["turns"] is not None
            }
        )
    for name in ("topics", "items"):
        if parts[name]:
            loaders.related(f"profile_{name}").prime_many(
                {row["key"]: [{"key": row["key"], "node": node} for node in row[name]] for row in rows}
            )
    return nodes
