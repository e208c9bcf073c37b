"""The synthesis pipeline end to end on the fake endpoint: every stage over the bundled sample's KB gives a
bundle that passes `check`, ingests into an empty graph and runs with MEMKB (over Mem0's memories, built through
the real SDK with scripted extraction) and HYBRID; the synthesized graph replays to the same projection; the CLI
says so clearly when no LLM is configured; gold in synthesis events is redacted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLE_BUNDLE, _load_bundle, emptied_store
from tests.fake_openai.synthesis_script import SynthesisPolicy
from tests.paths import REPO
from tests.synthesis_support import synth_context

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]


@pytest.fixture(scope="module")
def synthesized(driver, encoder, tmp_path_factory):  # type: ignore[no-untyped-def]
    """The sample KB, a full synthesis of dataset `syn-e2e` on it, and its exported bundle."""
    from agents.synthesis.export import export_bundle
    from agents.synthesis.pipeline import run_stages
    from agents.synthesis.summary import synthesis_summary

    store = _load_bundle(driver, encoder, SAMPLE_BUNDLE)
    root = tmp_path_factory.mktemp("synth")
    policy = SynthesisPolicy()
    config = {"dataset": "syn-e2e", "profiles": 2, "seed_docs": 2, "topics_per_profile": 2, "max_user_turns": 2}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("COLABENCH_CONFIG", str(root / "none.toml"))
        (root / "none.toml").write_text("")
        with synth_context(store, policy, root / "cache.sqlite", **config) as (ctx, _):
            results = run_stages(ctx, ["docs", "profiles", "dialogue", "items", "augment"])
            rerun_requests = len(policy.requests)
            again = run_stages(ctx, ["docs", "profiles", "dialogue", "items", "augment"])
            rerun_requests = len(policy.requests) - rerun_requests
    out = root / "bundle"
    exported = export_bundle(store, "syn-e2e", out)
    summary = synthesis_summary(store, "syn-e2e")
    return {
        "store": store,
        "results": results,
        "again": again,
        "rerun_requests": rerun_requests,
        "out": out,
        "exported": exported,
        "summary": summary,
        "policy": policy,
    }


def test_every_stage_accepts_units_and_a_rerun_asks_nothing(synthesized: dict[str, Any]) -> None:
    by_stage = {r["stage"]: r["counts"] for r in synthesized["results"]}
    assert set(by_stage) == {"docs", "profiles", "dialogue", "items", "augment"}
    for stage in ("profiles", "dialogue", "items"):
        accepted = by_stage[stage].get("accepted", 0) + by_stage[stage].get("accepted_after_revision", 0)
        assert accepted >= 1, (stage, by_stage[stage])
    assert synthesized["rerun_requests"] == 0
    assert all(r["counts"]["skipped_done"] == r["counts"]["planned"] for r in synthesized["again"])
    summary = synthesized["summary"]
    assert summary["accepted_items"] >= 1 and summary["per_accepted_item"]["calls"] > 0
    assert summary["gates"]["items:history_gate"].get("history_dependent", 0) >= 1


def test_the_exported_bundle_passes_check_ingests_and_runs_with_memkb_and_hybrid(
    synthesized: dict[str, Any],
    driver,
    encoder,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    from ingest.pipeline import load_input, write_events
    from tests.fake_openai.mem0_script import Mem0Script
    from tests.fake_openai.policy import AutoPolicy
    from tests.report_support import run_mini_batch

    assert synthesized["exported"].problems == []
    items = [json.loads(line) for line in (synthesized["out"] / "items.jsonl").read_text().splitlines()]
    assert items and all("history_dependent" in i["labels"] for i in items)
    assert {v["gate"] for i in items for v in i["verifications"]} >= {"history_gate", "final_verification"}
    fresh = emptied_store(driver, encoder)
    write_events(fresh, load_input(synthesized["out"]))
    plan = run_mini_batch(
        fresh, Mem0Script(fallback=AutoPolicy()), tmp_path / "cache.sqlite", methods="MEMKB,HYBRID", dataset="syn-e2e"
    )
    with fresh.driver.session() as session:
        answered = session.run(
            "MATCH (a:Attempt) WHERE a.run_id IN $runs AND a.status = 'answered' RETURN count(a) AS n",
            runs=[r.run_id for r in plan.runs],
        ).single()["n"]
        verified = session.run("MATCH (i:Item {dataset: 'syn-e2e'}) RETURN collect(i.verifications) AS v").single()["v"]
    assert answered == 2 * len(items)
    assert all(any(v.startswith("history_gate:") for v in vs) for vs in verified)


def test_the_synthesized_graph_replays_to_the_same_projection(synthesized: dict[str, Any]) -> None:
    from graph.fingerprint import compute_fingerprint
    from graph.replay import drop_projection, replay

    store = synthesized["store"]
    before = compute_fingerprint(store.driver)
    drop_projection(store)
    replay(store)
    after = compute_fingerprint(store.driver)
    assert after.digest == before.digest, before.differences(after)


def test_a_role_reply_holding_a_non_finite_number_is_sent_back_not_written() -> None:
    from agents.synthesis.roles import _replayable
    from agents.synthesis.stage_profiles import ProfileDraft

    fact = {"key": "f1", "text": "t", "category": "health", "source_doc_id": "d"}
    topic = {"key": "t1", "title": "x", "intent": "y", "fact_keys": ["f1"]}
    facts = json.dumps([fact, {**fact, "key": "f2"}])
    draft = ProfileDraft.model_validate_json(  # a JSON reply may spell NaN; the parser takes it
        f'{{"name": "n", "description": "d", "attributes": {{"age": NaN}}, "facts": {facts}, '
        f'"topics": [{json.dumps(topic)}]}}'
    )
    problem = _replayable(None)(draft)
    assert problem is not None and "attributes.age" in problem
    assert _replayable(lambda d: None)(draft.model_copy(update={"attributes": {"age": 41}})) is None


def test_synthesis_draft_reasons_and_gate_notes_are_gold() -> None:
    from api.redaction import redact_event

    found: list[str] = []
    payload = {"draft_id": "d", "reasons": ["the reference says X"], "details": {"blind_answer": "X", "label": "l"}}
    redacted = redact_event("SynthesisDraftRecorded", payload, found)
    assert redacted["reasons"] is None and redacted["details"]["blind_answer"] is None
    assert redacted["details"]["label"] == "l"
    # a gate's verdict on an item is a judge's record: its details are gold whole
    verified = redact_event("ItemVerified", {"item_id": "i", "details": {"comparator_notes": "quotes gold"}}, [])
    assert verified["details"] is None and verified["item_id"] == "i"


def test_synth_without_an_llm_says_so_and_exits_cleanly(tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {
        "PATH": "/usr/bin:/bin",
        "COLABENCH_CONFIG": str(tmp_path / "none.toml"),
        "HF_HUB_OFFLINE": "1",
        "COLABENCH_DATA_DIR": str(tmp_path / "data"),
        "PYTHONPATH": str(REPO),
    }
    (tmp_path / "none.toml").write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "cli", "synth", "all", "--dataset", "x"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "no LLM configured for the synthesis role" in done.stderr and "Traceback" not in done.stderr
