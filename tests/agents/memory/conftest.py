"""Fixtures shared by the memory-system tests of this folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graph.settings import Neo4jSettings


@pytest.fixture(scope="module")
def graphiti_env(tmp_path_factory: pytest.TempPathFactory, neo4j_settings: Neo4jSettings) -> Iterator[None]:
    """An empty config and a data folder of the module's own; with an external test server, Graphiti's own
    driver is pointed at the same one (it reads NEO4J_URI)."""
    with pytest.MonkeyPatch.context() as mp:
        empty = tmp_path_factory.mktemp("cfg") / "empty.toml"
        empty.write_text("")
        mp.setenv("COLABENCH_CONFIG", str(empty))
        mp.setenv("COLABENCH_DATA_DIR", str(tmp_path_factory.mktemp("data")))
        if neo4j_settings.uri:
            mp.setenv("NEO4J_URI", neo4j_settings.uri)
        yield
