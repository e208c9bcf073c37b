"""Expected failures print one line, never a traceback: the traceback goes to the debug log and to stderr only
under `--debug`. Covers a Neo4j refusal a user can act on (a database that does not exist)."""

from __future__ import annotations

from pathlib import Path

import pytest
from neo4j import Driver
from typer.testing import CliRunner

from cli import app


@pytest.fixture()
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COLABENCH_DATA_DIR", str(tmp_path))
    # Set (not deleted) so that monkeypatch restores it: `--debug` sets it in this process, and later tests of
    # the session must not inherit it.
    monkeypatch.setenv("COLABENCH_DEBUG", "0")
    return tmp_path


def test_unknown_database_is_one_line_and_the_traceback_goes_to_the_debug_log(
    driver: Driver, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEO4J_DATABASE", "nosuchdatabase")
    result = CliRunner().invoke(app, ["graph", "summary"])
    assert result.exit_code == 1, result.output
    assert "no such database" in result.output and "NEO4J_DATABASE" in result.output
    assert "Traceback" not in result.output
    log = (data_dir / "logs" / "cli-debug.log").read_text()
    assert "Traceback" in log and "DatabaseNotFound" in log

    debug = CliRunner().invoke(app, ["--debug", "graph", "summary"])
    assert debug.exit_code == 1 and "Traceback" in debug.output


def test_expected_input_error_keeps_its_traceback_out_of_the_console(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["check", str(data_dir / "no-such-bundle")])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "Traceback" in (data_dir / "logs" / "cli-debug.log").read_text()
