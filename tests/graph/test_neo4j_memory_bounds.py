"""Neo4j's bounds on transaction memory follow its heap: the bound on all transactions is never above 70% of the
heap (it was 1,536 MiB whatever the heap, so with the 1 GiB heap of the drills and tests it could never refuse a
query before the heap ran out) and one transaction may hold at most half of it. A query too large for the heap is
refused alone, as a transient error, and the server keeps answering."""

from __future__ import annotations

from pathlib import Path

import pytest
from neo4j.exceptions import Neo4jError

from graph.connection import open_driver
from graph.cypher_files import load_cypher
from graph.server import LocalNeo4jServer, free_port
from graph.settings import Neo4jSettings


def test_the_bounds_follow_the_heap() -> None:
    assert Neo4jSettings(heap="1g").heap_mib == 1024 and Neo4jSettings(heap="512M").heap_mib == 512
    one_gib = Neo4jSettings(heap="1g")  # tx_max_mib keeps its default of 1,536 MiB
    assert one_gib.tx_total_bound_mib == 716 and one_gib.tx_each_bound_mib == 358
    assert Neo4jSettings(heap="4g").tx_total_bound_mib == 1536  # the setting holds where the heap allows it
    # a small bound stays as set (Neo4j's minimum is 10 MiB), and one transaction may then hold all of it
    small = Neo4jSettings(heap="512m", tx_max_mib=10)
    assert (small.tx_total_bound_mib, small.tx_each_bound_mib) == (10, 10)
    # a bound per transaction larger than the total is cut to the total
    assert Neo4jSettings(heap="1g", tx_each_max_mib=5000).tx_each_bound_mib == 716


@pytest.mark.neo4j
def test_a_query_larger_than_the_heap_is_refused_alone_and_the_server_keeps_answering(tmp_path: Path) -> None:
    settings = Neo4jSettings(local_port=free_port(), heap="512m", pagecache_mib=64)
    server = LocalNeo4jServer(settings, home=tmp_path / "neo4j")
    server.start(timeout_s=300)
    try:
        driver = open_driver(settings)
        try:
            with driver.session() as session:
                bounds = {r["name"]: r["value"] for r in session.run(load_cypher("drill/memory_settings"))}
            assert bounds["dbms.memory.transaction.total.max"] == "358.00MiB", bounds
            assert bounds["db.memory.transaction.max"] == "179.00MiB", bounds
            # 20 million sorted integers need far more than the 512 MiB heap
            with pytest.raises(Neo4jError) as refused, driver.session() as session:
                session.run(load_cypher("drill/oversized_sort"), n=20_000_000).consume()
            assert refused.value.code is not None and refused.value.code.startswith("Neo.TransientError."), (
                refused.value.code
            )
            assert "MemoryLimit" in refused.value.code or "OutOfMemory" in refused.value.code, refused.value.code
            with driver.session() as session:
                assert session.run("RETURN 1 AS one").single()["one"] == 1  # type: ignore[index]
        finally:
            driver.close()
    finally:
        server.stop()
