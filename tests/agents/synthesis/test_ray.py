"""`synth ... --executor ray` (agents/synthesis/ray_units.py) on a local Ray instance over the real Neo4j and the
fake endpoint: every stage's units run in the actors (both get units), each stage closes the units and reaches the
outcomes the thread pool reaches on the same settings, the actors' LLM usage is in the stage figures, the bundle
passes `check`, and a rerun asks nothing.

Ray is an optional extra: `make test` runs the suite in the environment of scripts/setup_ray_env.sh and sets
COLABENCH_TESTS_NEED_RAY=1, so a missing Ray fails there instead of skipping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLE_BUNDLE, _load_bundle, serial_group
from tests.fake_openai.synthesis_script import SynthesisPolicy
from tests.synthesis_support import synth_context

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config"), serial_group("ray")]

STAGES = ["docs", "profiles", "dialogue", "items", "augment"]
SETTINGS = {"profiles": 2, "seed_docs": 2, "topics_per_profile": 2, "max_user_turns": 2}


def _synthesize(store: Any, root: Path, dataset: str, pool_settings: Any | None) -> dict[str, Any]:
    from agents.synthesis.pipeline import run_stages

    policy = SynthesisPolicy()
    with synth_context(store, policy, root / f"{dataset}.sqlite", concurrency=2, dataset=dataset, **SETTINGS) as (
        ctx,
        _,
    ):
        pool = None
        if pool_settings is not None:
            from agents.synthesis.ray_units import RayUnits

            pool = RayUnits(workers=2, roles=ctx.roles, prompts=ctx.prompts, config=ctx.config, neo4j=pool_settings)
            ctx.remote = pool
        try:
            results = run_stages(ctx, STAGES)
            before = len(policy.requests)
            again = run_stages(ctx, STAGES)
            rerun_requests = len(policy.requests) - before
        finally:
            if pool is not None:
                pool.close()
    return {"results": results, "again": again, "rerun_requests": rerun_requests, "pool": pool}


def test_synthesis_on_ray_actors_closes_every_unit_like_the_thread_pool(
    local_ray: Any, driver: Any, encoder: Any, neo4j_settings: Any, tmp_path: Path
) -> None:
    from agents.synthesis.export import export_bundle

    store = _load_bundle(driver, encoder, SAMPLE_BUNDLE)
    threads = _synthesize(store, tmp_path, "syn-threads", None)
    ray = _synthesize(store, tmp_path, "syn-ray", neo4j_settings)

    def outcomes(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        return {r["stage"]: r["counts"] for r in results}

    assert outcomes(ray["results"]) == outcomes(threads["results"])
    for by_threads, by_ray in zip(threads["results"], ray["results"], strict=True):
        # every call the actors made is in the stage's figures (the fake endpoint answers both runs alike)
        assert by_ray["usage"]["total"]["calls"] == by_threads["usage"]["total"]["calls"] > 0, by_ray["stage"]
    pool = ray["pool"]
    assert len(pool.units_per_actor) == 2 and all(n > 0 for n in pool.units_per_actor), pool.units_per_actor
    # a unit is a seed document, a profile slot, a profile's sessions, a topic's item or an augmentation
    not_dialogue = sum(r["counts"]["planned"] for r in ray["results"] if r["stage"] != "dialogue")
    assert sum(pool.units_per_actor) == not_dialogue + SETTINGS["profiles"]
    assert ray["rerun_requests"] == 0
    assert all(r["counts"]["skipped_done"] == r["counts"]["planned"] for r in ray["again"])
    exported = export_bundle(store, "syn-ray", tmp_path / "bundle")
    assert exported.problems == []


def test_synth_ray_address_without_the_ray_executor_is_one_message(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli import app

    result = CliRunner().invoke(app, ["synth", "docs", "--dataset", "syn-x", "--ray-address", "head:6379"])
    assert result.exit_code == 2, result.output  # bad input
    assert "--ray-address names the Ray cluster of --executor ray" in " ".join(result.output.split())
    assert "Traceback" not in result.output
