"""`colabench neo4j ...` manages a real local Neo4j; other commands explain how to start it when it is down."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from graph.server import free_port
from tests.paths import REPO


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=REPO, capture_output=True, text=True,
                          env={**clean, **env}, timeout=300)


@pytest.mark.slow
def test_neo4j_start_status_stop_round_trip(tmp_path: Path) -> None:
    env = {"COLABENCH_DATA_DIR": str(tmp_path), "COLABENCH_NEO4J_PORT": str(free_port()),
           "COLABENCH_NEO4J_HEAP": "512m", "COLABENCH_NEO4J_PAGECACHE_MIB": "64"}
    started = _cli("neo4j", "start", env=env)
    try:
        assert started.returncode == 0, started.stderr + started.stdout
        assert "ready" in started.stdout
        assert (tmp_path / "neo4j" / "data").is_dir()
        again = _cli("neo4j", "start", env=env)  # idempotent
        assert again.returncode == 0
        status = _cli("neo4j", "status", env=env)
        assert status.returncode == 0 and "running: ready" in status.stdout
        summary = _cli("graph", "summary", env=env)
        assert summary.returncode == 0, summary.stderr
        assert "log head: seq 0" in summary.stdout
        logs = _cli("neo4j", "logs", "-n", "5", env=env)
        assert "COLABENCH-NEO4J-READY" in logs.stdout
    finally:
        stopped = _cli("neo4j", "stop", env=env)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    after = _cli("neo4j", "status", env=env)
    assert after.returncode == 3 and "not running" in after.stdout


def test_commands_say_how_to_start_neo4j_when_it_is_not_running(tmp_path: Path) -> None:
    env = {"COLABENCH_DATA_DIR": str(tmp_path), "COLABENCH_NEO4J_PORT": str(free_port())}
    done = _cli("graph", "summary", env=env)
    assert done.returncode == 1
    assert "./colabench neo4j start" in done.stderr
    assert "Traceback" not in done.stderr


def test_start_refuses_a_port_taken_by_another_process(tmp_path: Path) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        port = blocker.getsockname()[1]
        done = _cli("neo4j", "start", env={"COLABENCH_DATA_DIR": str(tmp_path), "COLABENCH_NEO4J_PORT": str(port)})
    assert done.returncode == 1
    assert "already in use" in done.stderr
    assert "Traceback" not in done.stderr
