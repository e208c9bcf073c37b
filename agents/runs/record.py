"""What a run record holds beyond its config: library versions, the Neo4j server version, seeds."""

from __future__ import annotations

import platform
from importlib import metadata
from typing import Any

from neo4j import Driver

from graph.cypher_files import load_cypher
from graph.version import project_version

_LIBRARIES = ("neo4j", "openai", "pydantic", "pydantic-settings", "numpy", "sentence-transformers", "onnxruntime")


def library_versions(driver: Driver | None = None, database: str = "neo4j") -> dict[str, Any]:
    """Versions of Python, colabench, the libraries that shape results and (given a driver) the server."""
    versions: dict[str, Any] = {"python": platform.python_version(), "colabench": project_version()}
    for name in _LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    if driver is not None:
        with driver.session(database=database) as session:
            record = session.run(load_cypher("agents/server_version")).single()
        if record is not None:
            versions["neo4j_server"] = f"{record['name']} {record['version']} {record['edition']}"
    return versions
