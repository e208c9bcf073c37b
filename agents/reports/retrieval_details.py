"""What a retrieval-only report shows beside its numbers, read from the graph in batches: each evaluated item
(question, requirements with the user statements that disclosed their facts, support and history documents,
reference answer) and a title for every document, session and turn its rows name.

Gold stays redactable: requirement texts and actions sit in lists called `requirements` and the reference
answer under `reference_answer`, the keys api/redaction.py hides from a request without the token."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from neo4j import Driver

from agents.retrieval_eval.report import EvalReport
from graph.cypher_files import load_cypher

CHUNK = 500
TURN_TITLE_CHARS = 140


def _chunks(ids: list[str], size: int = CHUNK) -> Iterator[list[str]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _clip(text: str, limit: int = TURN_TITLE_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def load_item_details(driver: Driver, database: str, item_ids: list[str]) -> list[dict[str, Any]]:
    """The items in `item_ids` order (ids not in the graph are left out): question, reference answer,
    requirements (statements, facts, spans with their lines), support and history document ids."""
    found: dict[str, dict[str, Any]] = {}
    with driver.session(database=database) as session:
        for chunk in _chunks(item_ids):
            for record in session.run(load_cypher("reports/item_references"), item_ids=chunk):
                item = dict(record)
                for req in item["requirements"]:
                    req["spans"] = [
                        {
                            "doc_id": s["doc_id"],
                            "start_line": s["start_line"],
                            "end_line": s["end_line"],
                            "text": "\n".join(s["lines"]),
                        }
                        for s in req["spans"]
                    ]
                found[str(item["item_id"])] = item
    return [found[i] for i in item_ids if i in found]


def node_title(row: dict[str, Any]) -> str:
    """One line naming a document (its title), a session (topic or start, opening words) or a turn (speaker
    and words)."""
    if row["kind"] == "document":
        return str(row["title"] or row["id"])
    if row["kind"] == "session":
        head = str(row["title"] or (f"session of {row['at']}" if row.get("at") else "session"))
        return f"{head}: {_clip(str(row['text']), 80)}" if row.get("text") and not row["title"] else head
    speaker = row.get("speaker") or "turn"
    return f"{speaker}: {_clip(str(row.get('text') or ''))}"


def load_titles(driver: Driver, database: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    """id -> {kind, title, session_id} for every document, session and turn among `ids`."""
    out: dict[str, dict[str, Any]] = {}
    with driver.session(database=database) as session:
        for chunk in _chunks(list(dict.fromkeys(ids)), 2_000):
            for record in session.run(load_cypher("reports/node_titles"), ids=chunk):
                row = dict(record)
                out[str(row["id"])] = {"kind": row["kind"], "title": node_title(row), "session_id": row["session_id"]}
    return out


def collect_retrieval_details(driver: Driver, database: str, report: EvalReport) -> dict[str, Any]:
    """`items` (one per evaluated item, in row order, with its question type) and `titles` for the report."""
    item_ids = list(dict.fromkeys(row.item_id for row in report.rows))
    types = {row.item_id: row.type for row in report.rows}
    items = load_item_details(driver, database, item_ids)
    for item in items:
        item["type"] = types.get(str(item["item_id"]), "")
    ids = [node_id for row in report.rows for node_id in (*row.gold, *row.ranked)]
    for item in items:
        ids.extend(item["support_doc_ids"])
        ids.extend(item["history_doc_ids"])
        for req in item["requirements"]:
            ids.extend(st["id"] for st in req["statements"])
    titles = load_titles(driver, database, ids)
    # The sessions of the user statements, so an item row can name them by title too.
    sessions = [t["session_id"] for t in titles.values() if t["kind"] == "turn" and t.get("session_id")]
    titles.update(load_titles(driver, database, [s for s in sessions if s not in titles]))
    return {"items": items, "titles": titles}
