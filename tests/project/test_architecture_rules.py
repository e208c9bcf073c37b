"""The rooms keep their rules (issue 23, item 1; ARCHITECTURE.md): each top-level package imports only the rooms
below it, counting imports inside functions too. graph imports nothing of ours; ingest and query import graph;
agents imports graph, query and ingest; api everything above it; cli everything. A new upward arrow fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import REPO

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


# Circles between the parts of one room (issue 23, item 4), counted at the level of `room.part` (a subpackage or
# a top-level module of a room), with imports inside functions included. None is tolerated any more: a new circle
# fails the test (a late import does not hide it), and one listed here that is gone must be taken off the list.
KNOWN_CIRCLES: set[frozenset[str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_graph() -> dict[str, set[str]]:
    """`room.part` -> the other parts of the same room it imports (a `from x import name` of a submodule counts)."""
    modules = {_module_name(p): p for room in MAY_IMPORT for p in (REPO / room).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        part = ".".join(name.split(".")[:2])
        targets = graph.setdefault(part, set())
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            found: list[str] = []
            if isinstance(node, ast.Import):
                found = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            for module in found:
                if module in modules and module.split(".")[0] == name.split(".")[0]:
                    other = ".".join(module.split(".")[:2])
                    if other != part:
                        targets.add(other)
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_no_new_import_circle_between_the_parts_of_a_room() -> None:
    found = set(circles(part_graph()))
    new = sorted(sorted(c) for c in found - KNOWN_CIRCLES)
    gone = sorted(sorted(c) for c in KNOWN_CIRCLES - found)
    assert new == [], f"new import circles: {new}"
    assert gone == [], f"circles no longer there (take them off KNOWN_CIRCLES): {gone}"


def test_the_circle_finder_sees_a_circle_and_only_a_circle() -> None:
    graph = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": {"a.x"}}
    assert circles(graph) == [frozenset({"a.x", "a.y", "a.z"})]
    assert circles({"a.x": {"a.y"}, "a.y": set()}) == []
