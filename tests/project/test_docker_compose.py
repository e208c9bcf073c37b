"""docker-compose.yml runs Neo4j 5.26 Community plus the API (validated by docker where it exists)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml

from tests.paths import REPO

COMPOSE = REPO / "docker-compose.yml"


def test_compose_file_declares_neo4j_526_and_the_api() -> None:
    spec = yaml.safe_load(COMPOSE.read_text())
    assert spec["services"]["neo4j"]["image"] == "neo4j:5.26-community"
    api = spec["services"]["api"]
    assert api["environment"]["NEO4J_URI"] == "bolt://neo4j:7687"
    assert "serve" in api["command"]
    for service in spec["services"].values():
        for port in service.get("ports", []):
            assert port.startswith("127.0.0.1:"), f"{port} should bind to loopback only"


def test_docker_compose_config_accepts_the_file() -> None:
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("no docker client on this machine")
    probe = subprocess.run([docker, "compose", "version"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("the docker client has no compose plugin")
    result = subprocess.run([docker, "compose", "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
