"""Every command's help shows its option names whole at 80 columns and says what the code does; bad input on
the command line (an unknown method, run or dataset) exits 2; `llm settings` says what to set (issue 28,
item 8)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from graph.store import EventStore
from tests.cli.test_run_and_report_processes import MINI, cli_env, colabench


def _commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out = [(path, group)]
    if hasattr(group, "list_commands"):  # a group (typer's own click)
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):
            sub = group.get_command(ctx, name)
            if sub is not None:
                out.extend(_commands(sub, (*path, name)))
    return out


def _help(args: list[str]) -> str:
    from cli import app

    done = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert done.exit_code == 0, (args, done.output)
    return done.output


def test_every_option_name_is_whole_in_every_help_at_80_columns() -> None:
    from cli import app

    commands = _commands(typer.main.get_command(app))
    assert len(commands) > 20
    for path, command in commands:
        shown = _help(list(path))
        assert "…" not in shown, path
        for param in command.params:
            for name in [*param.opts, *param.secondary_opts]:
                if name.startswith("--"):
                    assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", shown), (path, name)


def test_help_texts_say_what_the_code_does() -> None:
    run = " ".join(_help(["run"]).split())
    assert "abstention" in run and "gotcha" in run  # --judges all runs them
    assert "first N by item id" in run and "hash of the item ids" in run  # both ways --items chooses
    evaluate = " ".join(_help(["eval"]).split())
    assert "qa (a reader and a judge)" in evaluate and "memory (LLM memory judges)" in evaluate
    assert "Evaluate retrieval (no LLM) on a dataset" not in evaluate


def test_llm_settings_says_what_to_set_when_a_role_is_not_configured(tmp_path: Path) -> None:
    done = colabench(["llm", "settings"], cli_env(tmp_path))
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("answerer:"))
    assert "not configured: set COLABENCH_LLM_BASE_URL" in line and "COLABENCH_LLM_ANSWERER_BASE_URL" in line


def test_an_unknown_method_exits_2(tmp_path: Path) -> None:
    done = colabench(["run", "--methods", "FOO", "--dataset", str(MINI)], cli_env(tmp_path))
    assert done.returncode == 2, done.stderr
    assert "unknown method 'FOO'" in done.stderr


@pytest.mark.neo4j
def test_an_unknown_run_exits_2(mini_store: EventStore, tmp_path: Path) -> None:
    done = colabench(["report", "nosuchrun"], cli_env(tmp_path))
    assert done.returncode == 2, done.stderr
    assert "unknown run id(s) ['nosuchrun']" in done.stderr


@pytest.mark.neo4j
@pytest.mark.parametrize("llm", [False, True], ids=["retrieval-line", "with-llm"])
def test_an_unknown_dataset_exits_2(mini_store: EventStore, tmp_path: Path, llm: bool) -> None:
    extra: dict[str, Any] = (
        {"COLABENCH_LLM_BASE_URL": "http://127.0.0.1:9/v1", "COLABENCH_LLM_MODEL": "m"} if llm else {}
    )
    done = colabench(["run", "--methods", "HYBRID", "--dataset", "nosuch"], cli_env(tmp_path, **extra))
    assert done.returncode == 2, done.stderr
    assert "nosuch" in done.stderr and "Traceback" not in done.stderr
