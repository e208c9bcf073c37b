"""Test session fixtures: a real Neo4j started by the suite, an emptied database per test.

Under pytest-xdist (`scripts/run_tests.sh` runs `-n 2 --dist loadgroup`) each worker is its own session: its own
Neo4j (a free port, a home under the worker's own temporary directory) and its own environment. A module is one
group, run whole by one worker in file order, because module fixtures (`mini_store`, `sample_store`) are shared by
its tests; modules marked `serial_group` (the Ray ones: each starts a Ray instance) share one group, so they
never run at the same time as each other."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from graph.connection import open_driver
from graph.cypher_files import load_cypher
from graph.server import throwaway_server
from graph.settings import Neo4jSettings

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def serial_group(name: str) -> pytest.MarkDecorator:
    """Modules of one named group run in one worker, one after another (never two of them at once)."""
    return pytest.mark.xdist_group(name)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test without an explicit group joins its module's group (before xdist reads the groups)."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


@pytest.fixture(scope="session", autouse=True)
def session_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data folder of the session's own (debug log, run artefacts, exchange store), so that no test writes
    into the checkout's `.data/` (or a user's COLABENCH_DATA_DIR); CLI children inherit it. Tests that need
    their own still set COLABENCH_DATA_DIR (`isolated_config`)."""
    folder = tmp_path_factory.mktemp("colabench-data")
    before = os.environ.get("COLABENCH_DATA_DIR")
    os.environ["COLABENCH_DATA_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("COLABENCH_DATA_DIR", None)
    else:
        os.environ["COLABENCH_DATA_DIR"] = before


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jSettings]:
    """COLABENCH_TEST_NEO4J_URI points the suite at a server it may wipe; otherwise it starts its own."""
    external = os.environ.get("COLABENCH_TEST_NEO4J_URI")
    if external:
        yield Neo4jSettings(uri=external)
        return
    os.environ.pop("NEO4J_URI", None)
    home = tmp_path_factory.mktemp("neo4j-home")  # under the worker's own basetemp with xdist
    # a generous bound on readiness: two workers' JVMs may start at once on a loaded machine
    with throwaway_server(home, heap="1g", pagecache_mib=256, timeout_s=600) as (settings, _):
        os.environ["COLABENCH_NEO4J_PORT"] = str(settings.local_port)
        yield settings


@pytest.fixture(scope="session")
def driver(neo4j_settings: Neo4jSettings) -> Iterator[Driver]:
    drv = open_driver(neo4j_settings)
    yield drv
    drv.close()


@pytest.fixture()
def empty_db(driver: Driver) -> Driver:
    """The database with every node removed (indexes and constraints stay)."""
    with driver.session() as session:
        session.run(load_cypher("admin/delete_everything")).consume()
    return driver


@pytest.fixture(scope="session")
def encoder():  # type: ignore[no-untyped-def]
    from graph.embeddings import load_encoder

    return load_encoder()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


SAMPLE_BUNDLE = REPO / "samples" / "colabench-sample"
MINI_BUNDLE = REPO / "tests" / "fixtures" / "mini_bundle"


def emptied_store(driver: Driver, encoder):  # type: ignore[no-untyped-def]
    """An EventStore over the emptied database, schema in place (for a module's own `store` fixture)."""
    from graph.store import EventStore

    with driver.session() as session:
        session.run(load_cypher("admin/delete_everything")).consume()
    store = EventStore(driver, encoder=encoder)
    store.ensure_schema()
    return store


def _load_bundle(driver: Driver, encoder, path: Path):  # type: ignore[no-untyped-def]
    from ingest.pipeline import load_input, write_events

    store = emptied_store(driver, encoder)
    write_events(store, load_input(path))
    return store


@pytest.fixture(scope="module")
def sample_store(driver: Driver, encoder):  # type: ignore[no-untyped-def]
    """A store holding exactly the bundled sample (re-ingested once per test module; embeddings are cached).

    Tests using it must not modify the graph in ways other tests of the module would notice."""
    return _load_bundle(driver, encoder, SAMPLE_BUNDLE)


@pytest.fixture(scope="module")
def mini_store(driver: Driver, encoder):  # type: ignore[no-untyped-def]
    """A store holding exactly the tiny hand-written fixture bundle `mini` (once per test module)."""
    return _load_bundle(driver, encoder, MINI_BUNDLE)


@pytest.fixture(scope="module")
def mini_retriever(mini_store: Any) -> Iterator[Any]:
    """A Retriever over `mini_store` (once per test module)."""
    from query.retriever import Retriever

    r = Retriever(mini_store.driver, mini_store.encoder)
    yield r
    r.close()


@pytest.fixture()
def store(empty_db: Driver, encoder):  # type: ignore[no-untyped-def]
    """An EventStore with the encoder over an emptied database that has the schema."""
    from graph.store import EventStore

    store = EventStore(empty_db, encoder=encoder)
    store.ensure_schema()
    return store


@pytest.fixture()
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty colabench.toml and a data folder of the test's own, so that no user setting (LLM endpoints,
    caches, cache namespace) reaches a test; modules opt in with `pytest.mark.usefixtures("isolated_config")`."""
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    monkeypatch.setenv("COLABENCH_CONFIG", str(empty))
    monkeypatch.setenv("COLABENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("COLABENCH_LLM_CACHE_NAMESPACE", raising=False)
    # a response cache of the test's own, not the machine-wide one other tests and workers write
    monkeypatch.setenv("COLABENCH_LLM_CACHE", str(tmp_path / "llm_responses.sqlite"))


def ray_module() -> Any:
    """The `ray` module for the Ray tests: `make test` runs the suite in the environment of
    scripts/setup_ray_env.sh and sets COLABENCH_TESTS_NEED_RAY=1, so a missing Ray fails there; elsewhere the
    Ray tests skip."""
    if os.environ.get("COLABENCH_TESTS_NEED_RAY") == "1":
        import ray

        return ray
    return pytest.importorskip("ray", reason="Ray is an optional extra: run the suite with scripts/setup_ray_env.sh")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """One local Ray instance for the module (starting one takes 10-30 s on 2 busy cores)."""
    ray = ray_module()
    from graph.ray_runtime import start_local_ray

    start_local_ray(num_cpus=2)
    try:
        yield ray
    finally:
        ray.shutdown()
