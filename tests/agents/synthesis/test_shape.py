"""Shape controls of a synthesis: the targets (paper proportions by default) steer stage III's single- vs
multi-fact mix and the augmentation ratio, the synthesis report compares produced with target, and `check`
warns before a run when a bundle's shape makes intervals or the single/multi comparison uninformative."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agents.synthesis.test_items import CONFIG, _rows, _world
from tests.conftest import SAMPLE_BUNDLE, _load_bundle
from tests.fake_openai.synthesis_script import SynthesisPolicy
from tests.paths import REPO
from tests.synthesis_support import synth_context


def test_paper_shape_is_the_default_target_and_derives_initial_items_and_single_share() -> None:
    from ingest.bundle.shape import MAX_SUPPORT_DOCS, ShapeTarget

    paper = ShapeTarget()
    assert (paper.profiles, paper.support_docs_per_item) == (10, 1)
    assert round(paper.profiles * paper.items_per_profile) == 349 and abs(paper.single_fact_share - 1 / 3) < 1e-9
    assert paper.initial_per_profile() == 18  # 34.9 items with one augmented per initial item
    assert abs(paper.initial_single_share() - 2 / 3) < 1e-9 and not paper.reachable()
    too_many = ShapeTarget(single_fact_share=0.8, augmented_per_initial=1.0)
    assert too_many.reachable() and "at most 0.50" in too_many.reachable()[0]
    # two or more support documents per item can be asked for, up to MAX_SUPPORT_DOCS; none or more are refused
    assert ShapeTarget(support_docs_per_item=2).support_docs_per_item == 2
    with pytest.raises(ValueError):
        ShapeTarget(support_docs_per_item=MAX_SUPPORT_DOCS + 1)
    with pytest.raises(ValueError):
        ShapeTarget(support_docs_per_item=0)


def test_shape_warnings_name_too_few_profiles_and_a_missing_fact_group() -> None:
    from ingest.bundle.shape import ItemShape, shape_of, shape_warnings

    few = shape_of(ItemShape(f"p{i % 3}", "initial", 2, 1) for i in range(9))
    warned = shape_warnings(few)
    assert any("only 3 profile(s)" in w and "fewer than 5" in w for w in warned)
    assert any("every item is multi-fact" in w for w in warned)
    enough = shape_of(ItemShape(f"p{i % 5}", "initial", 1 + i % 2, 1) for i in range(10))
    assert shape_warnings(enough) == []


def test_check_warns_about_the_bundled_samples_three_profiles_and_still_passes(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "COLABENCH_CONFIG": str(tmp_path / "none.toml"),
        "HF_HUB_OFFLINE": "1",
        "COLABENCH_DATA_DIR": str(tmp_path / "data"),
        "PYTHONPATH": str(REPO),
    }
    (tmp_path / "none.toml").write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "cli", "check", str(SAMPLE_BUNDLE)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" in done.stdout and "only 3 profile(s) have items" in done.stdout


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config")
def test_targets_steer_the_fact_mix_and_augmentation_and_the_report_compares_shape(
    driver, encoder, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from agents.synthesis import stage_augment, stage_items
    from agents.synthesis.summary import summary_markdown, synthesis_summary
    from ingest.bundle.shape import ShapeTarget

    store = _load_bundle(driver, encoder, SAMPLE_BUNDLE)
    target = ShapeTarget(profiles=1, items_per_profile=4, single_fact_share=0.25, augmented_per_initial=1.0)
    config: dict[str, Any] = {**CONFIG, "augment_per_item": 1, "target": target}
    world = _world(store, tmp_path, "syn-shape", **config)
    assert len(world["topics"]) == 2 == target.initial_per_profile()
    policy = SynthesisPolicy()
    with synth_context(store, policy, tmp_path / "cache.sqlite", dataset="syn-shape", **config) as (ctx, _):
        items = stage_items.run(ctx)
        augmented = stage_augment.run(ctx)
    assert items.outcomes["accepted"] == 2 and augmented.planned == 2
    wanted = sorted(json.loads(b["messages"][-1]["content"])["conditions_wanted"] for b in policy.seen("ItemPlan"))
    assert wanted == ["one", "two_or_more"]
    facts = _rows(
        store,
        "MATCH (i:Item {dataset: 'syn-shape', batch: 'initial'}) "
        "RETURN i.id AS id, size(COLLECT { MATCH (i)-[:HAS_REQUIREMENT]->()-[:USES_FACT]->(f) RETURN DISTINCT f.id }) "
        "AS n ORDER BY n",
    )
    assert [f["n"] for f in facts] == [1, 2]
    shape = synthesis_summary(store, "syn-shape")["shape"]
    assert shape["target_source"] == "recorded target"
    produced = shape["produced"]
    assert (produced["items"], produced["initial"], produced["augmented"], produced["single_fact"]) == (4, 2, 2, 1)
    rows = {r["measure"]: r for r in shape["comparison"]}
    assert rows["single-fact share"] == {"measure": "single-fact share", "target": 0.25, "produced": 0.25}
    assert rows["augmented per initial item"]["produced"] == 1.0 and rows["items"]["target"] == 4
    assert any("only 1 profile(s)" in w for w in shape["warnings"])
    text = summary_markdown(synthesis_summary(store, "syn-shape"))
    assert "| single-fact share | 0.25 | 0.25 |" in text
