"""Load Cypher statements from named files under cypher/ (no Cypher strings scattered in Python)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from graph.paths import CYPHER_DIR


class CypherNotFoundError(KeyError):
    """No .cypher file has the requested name."""


@cache
def load_cypher(name: str) -> str:
    """Return the text of cypher/<name>.cypher, e.g. load_cypher("projection/TurnAppended")."""
    path = CYPHER_DIR / f"{name}.cypher"
    if not path.is_file():
        raise CypherNotFoundError(f"no Cypher file {path.relative_to(CYPHER_DIR.parent)}")
    return path.read_text(encoding="utf-8")


def load_statements(name: str) -> list[str]:
    """Split a multi-statement file (statements end with ';' at line end) into single statements."""
    text = load_cypher(name)
    statements: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.strip().startswith("//"):
            continue
        current.append(line)
        if line.rstrip().endswith(";"):
            statement = "\n".join(current).strip().rstrip(";").strip()
            if statement:
                statements.append(statement)
            current = []
    tail = "\n".join(current).strip()
    if tail:
        statements.append(tail)
    return statements


def list_cypher(folder: str) -> list[str]:
    """Names (without extension) of the .cypher files in a folder of cypher/, sorted."""
    base = CYPHER_DIR / folder
    return sorted(f"{folder}/{p.stem}" for p in Path(base).glob("*.cypher"))
