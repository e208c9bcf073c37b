"""Memory systems from outside the package, through the CLI as a process: a plug-in module named in
COLABENCH_PLUGINS is listed in the `--system` help and built with; a memory adapter `http:<name>` is built
through the reference server, and its garbage reply is one line and exit 3."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.memory.adapter_server import create_app, serve_in_thread
from graph.store import EventStore
from tests.cli.test_run_and_report_processes import MINI, cli_env, colabench

pytestmark = pytest.mark.neo4j

PROFILE = "mini-p-sam"


def _memories(store: EventStore, system: str) -> int:
    with store.driver.session() as session:
        record = session.run(
            "MATCH (:Profile {id: $p})-[:HAS_MEMORY]->(m:Memory {system: $s})-[:DERIVED_FROM]->(:Turn) "
            "RETURN count(DISTINCT m) AS n",
            p=PROFILE, s=system,
        ).single()
    assert record is not None
    return int(record["n"])


def test_a_plugin_module_registers_a_system_the_cli_lists_and_builds(mini_store: EventStore, tmp_path: Path) -> None:
    env = cli_env(tmp_path, COLABENCH_PLUGINS="tests.plugins.echo_memory")
    shown = colabench(["memory", "build", "--help"], env)
    assert shown.returncode == 0 and "plugin_echo" in shown.stdout
    done = colabench(["memory", "build", "--system", "plugin_echo", "--profile", PROFILE], env)
    assert done.returncode == 0, done.stderr
    assert _memories(mini_store, "plugin_echo") > 0

    broken = colabench(
        ["memory", "build", "--system", "plugin_echo"], cli_env(tmp_path, COLABENCH_PLUGINS="tests.plugins.nowhere")
    )
    assert broken.returncode == 1
    assert "COLABENCH_PLUGINS: plug-in module 'tests.plugins.nowhere' could not be imported" in " ".join(
        broken.stderr.split()
    )


def test_a_plugin_folder_brings_its_recipe_and_method_with_no_edit_elsewhere(
    mini_store: EventStore, tmp_path: Path
) -> None:
    """One folder outside the package (tests/plugins/echo_memory/) declares a system, its recipe and its method:
    the query command searches with the recipe and `run` takes the method, nothing in the repository naming
    either (issue 23, item 2)."""
    env = cli_env(tmp_path, COLABENCH_PLUGINS="tests.plugins.echo_memory")
    built = colabench(["memory", "build", "--system", "plugin_echo", "--profile", PROFILE], env)
    assert built.returncode == 0, built.stderr
    found = colabench(["query", "search", "flu", "--recipe", "PLUGIN_ECHO", "--profile", PROFILE, "--json"], env)
    assert found.returncode == 0, found.stderr
    memories = json.loads(found.stdout)["memories"]
    assert memories and all(m["memory_id"].startswith("plugin_echo:") for m in memories)
    ran = colabench(["run", "--methods", "PLUGIN_ECHO", "--dataset", str(MINI)], env)
    assert ran.returncode == 0, ran.stderr
    assert "skipping state summaries, answers and judging" in " ".join(ran.stderr.split())
    without = colabench(["run", "--methods", "PLUGIN_ECHO", "--dataset", str(MINI)], cli_env(tmp_path))
    assert without.returncode != 0 and "unknown method 'PLUGIN_ECHO'" in " ".join(without.stderr.split())


def test_an_http_adapter_builds_through_the_cli_and_a_garbage_reply_exits_3(
    mini_store: EventStore, tmp_path: Path
) -> None:
    with serve_in_thread(create_app()) as url:
        env = cli_env(tmp_path, COLABENCH_MEMORY_ADAPTER_REF_URL=url)
        listed = colabench(["memory", "systems"], env)
        assert listed.returncode == 0 and "http:ref" in listed.stdout
        done = colabench(["memory", "build", "--system", "http:ref", "--profile", PROFILE], env)
    assert done.returncode == 0, done.stderr
    assert _memories(mini_store, "http:ref") > 0
    with serve_in_thread(create_app(test_mode="garbage")) as url:
        env = cli_env(tmp_path, COLABENCH_MEMORY_ADAPTER_BAD_URL=url)
        failed = colabench(["memory", "build", "--system", "http:bad", "--profile", PROFILE], env)
    assert failed.returncode == 3, failed.stdout + failed.stderr
    assert f"memory adapter 'bad' at {url}: POST /v1/add: the reply is not JSON" in " ".join(failed.stderr.split())
