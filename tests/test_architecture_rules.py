"""The rooms keep their rules (issue 23, item 1; ARCHITECTURE.md): each top-level package imports only the rooms
below it, counting imports inside functions too. graph imports nothing of ours; ingest and query import graph;
agents imports graph, query and ingest; api everything above it; cli everything. A new upward arrow fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MAY_IMPORT: dict[str, set[str]] = {
    "graph": set(),
    "ingest": {"graph"},
    "query": {"graph"},
    "agents": {"graph", "query", "ingest"},
    "api": {"graph", "query", "ingest", "agents"},
    "cli": {"graph", "query", "ingest", "agents", "api"},
}


def imported_rooms(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import of one of our rooms in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return [(line, module) for line, module in found if module.split(".")[0] in MAY_IMPORT]


@pytest.mark.parametrize("room", sorted(MAY_IMPORT))
def test_a_room_imports_only_the_rooms_below_it(room: str) -> None:
    allowed = MAY_IMPORT[room] | {room}
    broken = [
        f"{path.relative_to(REPO)}:{line} imports {module}"
        for path in sorted((REPO / room).rglob("*.py"))
        for line, module in imported_rooms(path)
        if module.split(".")[0] not in allowed
    ]
    assert broken == [], "\n".join(broken)


def test_the_rule_checker_sees_an_upward_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from agents.memory.cards import build_raw_turn_cards\n", encoding="utf-8")
    assert imported_rooms(probe) == [(2, "agents.memory.cards")]
