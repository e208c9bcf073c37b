"""Ranges are validated at the door and `serve` checks its port before starting (issue 28, item 8): one line,
a non-zero exit, nothing started."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.cli.test_run_and_report_processes import MINI, cli_env, colabench


def test_a_negative_item_count_is_refused_before_anything_runs(tmp_path: Path) -> None:
    done = colabench(["run", "--methods", "HYBRID", "--dataset", str(MINI), "--items", "-1"], cli_env(tmp_path))
    said = " ".join(done.stderr.replace("│", " ").split())
    assert done.returncode == 2
    assert "--items" in said and "greater than or equal to 1" in said
    assert not (tmp_path / "data" / "reports").exists()


def test_a_zero_limit_is_refused_by_eval_retrieval(tmp_path: Path) -> None:
    done = colabench(["eval", "retrieval", "--dataset", str(MINI), "--limit", "0"], cli_env(tmp_path))
    assert done.returncode == 2 and "--limit" in done.stderr


def test_serve_on_a_busy_port_says_so_in_one_line_and_exits(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        done = colabench(["serve", "--host", "127.0.0.1", "--port", str(port)], cli_env(tmp_path), timeout=120)
    assert done.returncode != 0
    said = " ".join(done.stderr.split())
    assert f"cannot listen on 127.0.0.1:{port}" in said and "Traceback" not in done.stderr
    assert "colabench API on" not in done.stdout
