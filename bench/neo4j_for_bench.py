"""A throwaway Neo4j for benchmarks: the project's launcher on a free port in a temporary directory
(or the server named by COLABENCH_BENCH_NEO4J_URI, which the benchmark will wipe)."""

from __future__ import annotations

import os
import resource
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from neo4j import Driver

from graph.connection import open_driver
from graph.cypher_files import load_cypher
from graph.server import throwaway_server
from graph.settings import Neo4jSettings


@contextmanager
def bench_neo4j(heap: str = "2g", pagecache_mib: int = 512, keep: bool = False) -> Iterator[tuple[Driver, int | None]]:
    """(driver, JVM pid or None) on an empty database; `keep`: the COLABENCH_BENCH_NEO4J_URI server is not wiped
    (a benchmark that ingests idempotently then reuses what an earlier run ingested)."""
    with bench_neo4j_server(heap, pagecache_mib, keep) as (_settings, driver, pid):
        yield driver, pid


@contextmanager
def bench_neo4j_server(
    heap: str = "2g", pagecache_mib: int = 512, keep: bool = False
) -> Iterator[tuple[Neo4jSettings, Driver, int | None]]:
    """`bench_neo4j` with the server's settings too (for workers that open their own driver)."""
    external = os.environ.get("COLABENCH_BENCH_NEO4J_URI")
    if external:
        settings = Neo4jSettings(uri=external)
        driver = open_driver(settings)
        if not keep:
            wipe(driver)
        try:
            yield settings, driver, None
        finally:
            driver.close()
        return
    with (
        tempfile.TemporaryDirectory(prefix="colabench-bench-") as home,
        throwaway_server(Path(home), heap=heap, pagecache_mib=pagecache_mib) as (settings, status),
    ):
        driver = open_driver(settings)
        try:
            yield settings, driver, status.pid
        finally:
            driver.close()


def wipe(driver: Driver) -> None:
    with driver.session() as session:
        session.run(load_cypher("admin/delete_everything")).consume()


def peak_rss_mib(pid: int | None = None) -> float:
    """Peak resident memory (VmHWM) of a process, or of this one."""
    if pid is None:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")
