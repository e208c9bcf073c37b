"""A synthesis stage from outside the package (issue 23, item 3): `tests/plugins/echo_stage.py`, one module with one
registration line, named in COLABENCH_PLUGINS, takes its place in the pipeline's order, is a `synth` subcommand,
is a stage name the synthesis events accept, runs, and is counted by the synthesis report; nothing in the
repository names it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from agents.synthesis.registry import stage_names, unregister_stage
from graph.events import SynthesisDraftRecorded
from tests.cli.test_run_and_report_processes import cli_env, colabench
from tests.conftest import SAMPLE_BUNDLE, _load_bundle
from tests.fake_openai.synthesis_script import SynthesisPolicy
from tests.synthesis_support import synth_context

PLUGIN = "tests.plugins.echo_stage"
SHIPPED = ("docs", "web", "profiles", "dialogue", "items", "augment")


def _draft(stage: str) -> SynthesisDraftRecorded:
    return SynthesisDraftRecorded(
        draft_id="d-1", synthesis_id="synth-x", stage=stage, role="linker", subject="s", outcome="rejected"
    )


@pytest.fixture
def echo_stage(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("COLABENCH_PLUGINS", PLUGIN)
    yield
    unregister_stage("echo")


def test_the_shipped_stages_register_themselves_in_pipeline_order() -> None:
    assert stage_names() == SHIPPED
    with pytest.raises(ValidationError, match="unknown synthesis stage 'nowhere'"):
        _draft("nowhere")


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config", "echo_stage")
def test_a_plugin_stage_runs_in_its_place_and_the_report_counts_it(driver, encoder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from agents.synthesis.pipeline import run_stages
    from agents.synthesis.summary import synthesis_summary
    from tests.plugins.echo_stage import REASON

    assert stage_names() == ("docs", "web", "profiles", "dialogue", "items", "echo", "augment")
    assert _draft("echo").stage == "echo"
    store = _load_bundle(driver, encoder, SAMPLE_BUNDLE)
    with synth_context(store, SynthesisPolicy(), tmp_path / "cache.sqlite", dataset="syn-echo") as (ctx, fake):
        results = run_stages(ctx, ["echo"])
    assert [r["stage"] for r in results] == ["echo"]
    assert results[0]["counts"]["rejected"] == 1
    assert fake.requests == []  # it asks no model
    summary = synthesis_summary(store, "syn-echo")
    assert list(summary["stages"]) == ["docs", "web", "profiles", "dialogue", "items", "echo", "augment"]
    echo = summary["stages"]["echo"]
    assert echo["units_closed"] == 1 and echo["outcomes"] == {"rejected": 1}
    # declared gold_reasons=False: its reasons are in the console report, not only in the bundle's own
    assert echo["top_reasons"] == [{"reason": REASON, "n": 1}]
    unregister_stage("echo")
    with pytest.raises(ValidationError, match="unknown synthesis stage 'echo'"):
        _draft("echo")


def test_a_plugin_stage_is_a_synth_subcommand(tmp_path: Path) -> None:
    with_plugin = colabench(["synth", "--help"], cli_env(tmp_path, COLABENCH_PLUGINS=PLUGIN))
    assert with_plugin.returncode == 0, with_plugin.stderr
    assert "Echo: a plug-in stage." in with_plugin.stdout
    shown = colabench(["synth", "echo", "--help"], cli_env(tmp_path, COLABENCH_PLUGINS=PLUGIN))
    assert shown.returncode == 0 and "--dataset" in shown.stdout
    without = colabench(["synth", "--help"], cli_env(tmp_path))
    assert without.returncode == 0 and "echo" not in without.stdout
