"""`colabench serve` runs the API as people start it; settings come from the environment and the [api] table;
`colabench schema --graphql` prints the SDL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from api.settings import ApiSettings
from graph.server import free_port
from tests.paths import REPO


def test_settings_come_from_the_api_table_and_environment_variables_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "colabench.toml"
    config.write_text(
        '[api]\ntoken = "from-the-file-0123456789"\ncors_origins = ["https://lab.example"]\nmax_depth = 7\n'
    )
    monkeypatch.setenv("COLABENCH_CONFIG", str(config))
    for name in ("COLABENCH_API_TOKEN", "COLABENCH_API_MAX_DEPTH", "COLABENCH_API_CORS_ORIGINS"):
        monkeypatch.delenv(name, raising=False)
    settings = ApiSettings()
    assert (settings.token, settings.cors_origins, settings.max_depth) == (
        "from-the-file-0123456789",
        ["https://lab.example"],
        7,
    )
    monkeypatch.setenv("COLABENCH_API_MAX_DEPTH", "5")
    monkeypatch.setenv("COLABENCH_API_CORS_ORIGINS", "https://a.example, https://b.example/")
    settings = ApiSettings()
    assert settings.max_depth == 5 and settings.cors_origins == ["https://a.example", "https://b.example"]
    assert settings.mutations_enabled


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("token", "short", "at least 16 characters"), ("cors_origins", "*", "wildcard is refused")],
)
def test_weak_security_settings_are_refused_with_a_clear_message(field: str, value: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ApiSettings(**{field: value})
    assert not ApiSettings(token="").mutations_enabled


def test_schema_command_prints_the_graphql_sdl() -> None:
    from cli import app

    result = CliRunner().invoke(app, ["schema", "--graphql"])
    assert result.exit_code == 0
    for expected in ("type Query", "item(id: ID!): Item", "appendTurns(", "neighborhood(", "type Attempt"):
        assert expected in result.output


@pytest.mark.neo4j
def test_serve_command_starts_the_api_and_stops_cleanly(driver: Any) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLABENCH_API_TOKEN": ""}
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "serve", "--port", str(port), "--log-level", "warning"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 300  # a generous bound on a condition
        ready = None
        while time.monotonic() < deadline and ready is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
                    ready = response.read().decode()
            except OSError:
                time.sleep(0.2)
        assert ready is not None and '"status":"ready"' in ready and "disabled" in ready
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/browser", timeout=60) as response:
            assert response.status == 200 and b"cytoscape" in response.read()
    finally:
        process.terminate()
        output = process.communicate(timeout=120)[0].decode()
    # uvicorn shuts down gracefully on SIGTERM, then re-raises it, so the exit status is 0 or -SIGTERM.
    assert process.returncode in (0, -signal.SIGTERM), output
    flat = " ".join(output.split())  # the console wraps long lines at its width
    assert f"http://127.0.0.1:{port}" in flat and "mutations disabled" in flat
