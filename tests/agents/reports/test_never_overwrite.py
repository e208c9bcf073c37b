"""Reports never overwrite each other (issue 28, item 4): each retrieval-only configuration has its own folder,
and a run whose recipes were all left out writes nothing, keeps `latest.json` and exits non-zero with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.reports.retrieval_only import retrieval_folder_name
from graph.store import EventStore
from tests.cli.test_run_and_report_processes import MINI, cli_env, colabench

pytestmark = pytest.mark.neo4j


def test_folder_names_differ_by_methods_and_items() -> None:
    names = {
        retrieval_folder_name("mini", ["HYBRID"], None),
        retrieval_folder_name("mini", ["HYBRID"], 2),
        retrieval_folder_name("mini", ["MEMKB_RAW_TURNS", "HYBRID"], None),
        retrieval_folder_name("mini", ["A", "B", "C", "D"], None),
        retrieval_folder_name("mini", ["A", "B", "C", "E"], None),
    }
    assert len(names) == 5
    assert retrieval_folder_name("mini", ["HYBRID"], 2) == "mini-retrieval-only-hybrid-n2"


def test_a_run_with_every_recipe_left_out_writes_nothing_and_says_why(mini_store: EventStore, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    first = colabench(["run", "--methods", "HYBRID", "--dataset", str(MINI)], env)
    assert first.returncode == 0, first.stderr
    reports = tmp_path / "data" / "reports"
    kept = reports / "mini-retrieval-only-hybrid" / "report.json"
    before = (kept.read_bytes(), (reports / "latest.json").read_bytes())

    # MEMKB reads Mem0's memories, which need an LLM: its only recipe is left out
    empty = colabench(["run", "--methods", "MEMKB", "--dataset", str(MINI)], env)
    assert empty.returncode != 0
    said = " ".join(empty.stderr.split())
    assert "nothing to report" in said and "left out" in said and "no report was written" in said
    assert not (reports / "mini-retrieval-only-memkb").exists()
    assert (kept.read_bytes(), (reports / "latest.json").read_bytes()) == before
    assert json.loads(before[1])["path"].endswith("mini-retrieval-only-hybrid")
