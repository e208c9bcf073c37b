"""Synthesis stages 0 and I against the fake endpoint: document links and reviewed profiles become events,
a draft sent back is revised and both outcomes are recorded, and a rerun skips closed units."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLE_BUNDLE, _load_bundle
from tests.fake_openai.synthesis_script import SynthesisPolicy
from tests.synthesis_support import synth_context

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]


@pytest.fixture(scope="module")
def store(driver, encoder):  # type: ignore[no-untyped-def]
    return _load_bundle(driver, encoder, SAMPLE_BUNDLE)


def _rows(store: Any, cypher: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [r.data() for r in session.run(cypher, **params)]


def test_stage0_links_seed_documents_to_searched_candidates_and_rerun_adds_nothing(store, tmp_path: Path) -> None:
    from agents.synthesis import stage_docs
    from agents.synthesis.pipeline import start

    policy = SynthesisPolicy()
    with synth_context(store, policy, tmp_path / "cache.sqlite", dataset="syn-links", seed_docs=2) as (ctx, _):
        start(ctx)
        report = stage_docs.run(ctx)
        assert report.outcomes["accepted"] == 2
        links = _rows(store, "MATCH (e:Event {type: 'DocumentsLinked', actor: 'synthesis:linker'}) RETURN e.seq AS s")
        assert 1 <= len(links) <= 4
        # every proposed destination came from a real search the linker asked for
        assert len(policy.seen("LinkQueries")) == 2 and len(policy.seen("LinkProposals")) == 2
        again = stage_docs.run(ctx)
        assert again.skipped == 2 and sum(again.outcomes.values()) == 0
        linker_links = "MATCH (e:Event {type: 'DocumentsLinked', actor: 'synthesis:linker'}) RETURN 1"
        assert len(_rows(store, linker_links)) == len(links)


def test_stage1_revised_profile_records_both_outcomes_and_grounds_facts(store, tmp_path: Path) -> None:
    from agents.synthesis import stage_profiles
    from agents.synthesis.pipeline import start

    policy = SynthesisPolicy(profile_reviews=["revise", "accept", "reject"])
    with synth_context(store, policy, tmp_path / "cache.sqlite", dataset="syn-prof", profiles=2, max_revisions=1) as (
        ctx,
        _,
    ):
        start(ctx)
        report = stage_profiles.run(ctx)
    assert report.outcomes == {"accepted_after_revision": 1, "dropped": 1}
    profiles = _rows(
        store, "MATCH (p:Profile {dataset: 'syn-prof'})-[:HAS_FACT]->(f:Fact) RETURN p.id AS p, f.metadata AS m"
    )
    assert {r["p"] for r in profiles} == {"syn-prof-p000"}
    drafts = _rows(
        store,
        "MATCH (d:SynthesisDraft {synthesis_id: 'synth-syn-prof'}) "
        "RETURN d.subject AS s, d.outcome AS o, d.revision AS r ORDER BY s, r, o",
    )
    assert [(d["s"], d["o"], d["r"]) for d in drafts] == [
        ("profile:0", "revise", 0),
        ("profile:0", "accepted", 1),
        ("profile:1", "dropped", 0),
    ]
    # the revision request showed the Director the reviewer's problems and its previous draft
    second = policy.seen("ProfileDraft")[1]
    assert "does not say which stage" in second["messages"][-1]["content"]
