"""The suite writes only under temporary or cache folders: the CLI's debug log of an expected failure (what wrote
the checkout's `.data/logs/` during `make test`) goes to the session's own data folder."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from cli import app
from graph.paths import REPO_ROOT, data_dir


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else -1


def test_an_expected_failure_logs_its_traceback_under_the_session_folder_not_the_checkout(
    session_data_dir: Path,
) -> None:
    checkout_log = REPO_ROOT / ".data" / "logs" / "cli-debug.log"
    before = _size(checkout_log)
    assert data_dir() == session_data_dir.resolve()
    assert not data_dir().is_relative_to(REPO_ROOT)

    result = CliRunner().invoke(app, ["check", str(session_data_dir / "no-such-bundle")])

    assert result.exit_code == 2, result.output
    log = session_data_dir / "logs" / "cli-debug.log"
    assert "no-such-bundle" in log.read_text(encoding="utf-8")
    assert _size(checkout_log) == before


def test_cli_children_inherit_the_session_folder(session_data_dir: Path) -> None:
    assert os.environ["COLABENCH_DATA_DIR"] == str(session_data_dir)
