"""Several support documents per item (`synth --support-docs N`, N >= 2), on the real Neo4j with the fake endpoint:
`synth all --support-docs 2` through the CLI writes items with two support documents each that pass `check`;
the Builder is asked for two with its own prompt; the blind solver reads each document as the agent's Read returns
it; the verifier sees each one's text; the augmenter's `replace` swaps one; the report's shape table compares
produced and target. With one support document (the default) the requests and the recorded prompt hashes keep the
single-document prompts (the bundled synth-sample's byte-for-byte replay, tests/agents/synthesis/
test_synth_sample.py, pins those requests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.synthesis.test_items import CONFIG, _rows, _world
from tests.cli.test_run_and_report_processes import cli_env, colabench
from tests.conftest import SAMPLE_BUNDLE, _load_bundle
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.synthesis_script import SynthesisPolicy
from tests.synthesis_support import synth_context

pytestmark = [pytest.mark.neo4j]

DATASET = "syn-docs2"
ARGS = ["--profiles", "1", "--items-per-profile", "6", "--single-share", "0", "--augment-ratio", "2",
        "--support-docs", "2", "--seed-docs", "2", "--turns", "2"]  # fmt: skip


def _view(body: dict[str, Any]) -> dict[str, Any]:
    return json.loads(next(m["content"] for m in body["messages"] if m["role"] == "user"))


def _system(body: dict[str, Any]) -> str:
    return str(body["messages"][0]["content"])


@pytest.fixture(scope="module")
def store(driver, encoder):  # type: ignore[no-untyped-def]
    return _load_bundle(driver, encoder, SAMPLE_BUNDLE)


@pytest.fixture(scope="module")
def synthesized(store, tmp_path_factory):  # type: ignore[no-untyped-def]
    """`synth all --support-docs 2` through the CLI against the fake endpoint; its bundle and the requests."""
    tmp = tmp_path_factory.mktemp("docs2")
    policy = SynthesisPolicy()
    with FakeOpenAI(policy) as fake:
        env = cli_env(tmp, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model")
        done = colabench(["synth", "all", "--dataset", DATASET, *ARGS, "--out", str(tmp / "bundle")], env, timeout=900)
    return {"done": done, "policy": policy, "out": tmp / "bundle", "tmp": tmp}


def test_synth_all_with_two_support_docs_writes_items_with_two_that_pass_check(store, synthesized) -> None:
    done, out = synthesized["done"], synthesized["out"]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "check: ok" in done.stdout
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    initial = [i for i in items if i["batch"] == "initial"]
    augmented = [i for i in items if i["batch"] == "augmented"]
    assert len(initial) == 2 and augmented, [i["item_id"] for i in items]
    exposed = {
        x["doc_id"]
        for s in (json.loads(line) for line in (out / "sessions.jsonl").read_text().splitlines())
        for t in s["turns"]
        for x in t.get("exposures", [])
    }
    for item in items:
        support = item["support_doc_ids"]
        assert len(support) == 2 == len(set(support)) and not set(support) & exposed, item["item_id"]
        cited = {s["doc_id"] for r in item["requirements"] for s in r.get("spans", [])}
        assert set(support) <= cited
    # the bundle checks on its own too (the CLI's `check`, a fresh process)
    checked = colabench(["check", str(out)], cli_env(synthesized["tmp"]))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # the graph: two SUPPORTED_BY per item
    rows = _rows(
        store,
        "MATCH (i:Item {dataset: $d}) RETURN i.id AS id, COUNT { (i)-[:SUPPORTED_BY]->() } AS n",
        d=DATASET,
    )
    assert rows and all(r["n"] == 2 for r in rows)


def test_the_report_compares_produced_with_target_support_docs(synthesized) -> None:
    report = json.loads((synthesized["out"] / "synthesis_report.json").read_text())
    rows = {r["measure"]: r for r in report["shape"]["comparison"]}
    assert rows["support documents per item"] == {"measure": "support documents per item", "target": 2, "produced": 2.0}
    assert "| support documents per item | 2 | 2.0 |" in (synthesized["out"] / "synthesis_report.md").read_text()


def _own_line(single: str, several: str) -> str:
    """The first line of the one-document template that the several-document template does not have (the two
    open with the same sentence, so their first lines cannot tell them apart)."""
    theirs = set(several.split("\n"))
    return next(line for line in single.split("\n") if line.strip() and line not in theirs)


def test_roles_get_the_several_document_prompts_and_views(store, synthesized) -> None:
    from agents.prompts.synthesis.items import SYNTH_BLIND_SOLVER, SYNTH_ITEM_BUILDER, SYNTH_ITEM_VERIFIER
    from agents.prompts.synthesis.support_docs import (
        SYNTH_AUGMENTER_DOCS,
        SYNTH_BLIND_SOLVER_DOCS,
        SYNTH_ITEM_BUILDER_DOCS,
        SYNTH_ITEM_VERIFIER_DOCS,
    )
    from agents.tools.execution import ToolScope, execute_tool
    from query.retriever import Retriever

    policy = synthesized["policy"]
    assert not policy.seen("ItemPlan") and not policy.seen("AugmentPlan")
    builders = policy.seen("SupportDocsPlan")
    assert builders and all(_view(b)["support_docs_wanted"] == 2 for b in builders)
    head = SYNTH_ITEM_BUILDER_DOCS.text.split("[[user]]")[0].removeprefix("[[system]]\n").strip()
    assert all(_system(b).startswith(head) for b in builders)
    assert not any(_own_line(SYNTH_ITEM_BUILDER.text, SYNTH_ITEM_BUILDER_DOCS.text) in _system(b) for b in builders)
    augmenters = policy.seen("AugmentDocsPlan")
    assert augmenters and all(SYNTH_AUGMENTER_DOCS.text.split("\n")[1] in _system(b) for b in augmenters)

    # the blind solver: each support document, read page after page as the agent's Read returns it
    retriever = Retriever(store.driver, store.encoder)
    blind = policy.seen("BlindAnswer")
    assert blind
    for body in blind:
        assert SYNTH_BLIND_SOLVER_DOCS.text.split("\n")[1] in _system(body)
        assert _own_line(SYNTH_BLIND_SOLVER.text, SYNTH_BLIND_SOLVER_DOCS.text) not in _system(body)
        view = _view(body)
        assert len(view["documents"]) == 2 and "pages" not in view
        for document in view["documents"]:
            found = _rows(
                store, "MATCH (d:Document {title: $t}) RETURN d.id AS id, d.n_lines AS n", t=document["document_title"]
            )[0]
            expect = 1
            for page in document["pages"]:
                args = json.dumps({"doc_id": found["id"], "start_line": expect})
                got = execute_tool(retriever, "read", args, recipe="HYBRID", scope=ToolScope(profile_id="blind"))
                assert json.loads(got.response)["text"] == page["text"]
                expect = page["end_line"] + 1
            assert document["document_lines"] == found["n"]
            assert document["whole_document_read"] == (expect > found["n"])

    # the verifier: each support document's text, and evidence labelled with its document
    verifiers = policy.seen("FinalVerification")
    assert verifiers
    for body in verifiers:
        assert SYNTH_ITEM_VERIFIER_DOCS.text.split("\n")[1] in _system(body)
        assert SYNTH_ITEM_VERIFIER.text.split("[[user]]")[0] != SYNTH_ITEM_VERIFIER_DOCS.text.split("[[user]]")[0]
        view = _view(body)
        assert len(view["support_documents"]) == 2 and "support_document" not in view
        for support in view["support_documents"]:
            text = _rows(store, "MATCH (d:Document {id: $id}) RETURN d.text AS t", id=support["doc_id"])[0]["t"]
            first = text.split("\n")[0]
            assert support["text"].startswith(f"1: {first}")
        evidence = [e for r in view["requirements"] for e in r["evidence"]]
        assert {e.split(" lines ")[0] for e in evidence} == {s["doc_id"] for s in view["support_documents"]}


def test_augmentation_replace_swaps_one_support_document_and_recombine_keeps_both(synthesized) -> None:
    items = {
        i["item_id"]: i
        for i in (json.loads(line) for line in (synthesized["out"] / "items.jsonl").read_text().splitlines())
    }
    directions = {}
    for item in items.values():
        if item["batch"] != "augmented":
            continue
        source = items[item["augmented_from"]["from_item_id"]]
        new, old = set(item["support_doc_ids"]), set(source["support_doc_ids"])
        direction = item["augmented_from"]["direction"]
        directions[item["item_id"]] = direction
        if direction == "replace":
            assert len(new - old) == 1 and len(old - new) == 1, (item["item_id"], new, old)
        else:
            assert new == old
    assert "replace" in directions.values() and "recombine" in directions.values(), directions


@pytest.mark.usefixtures("isolated_config")
def test_a_builder_reply_naming_fewer_support_docs_is_sent_back(store, tmp_path: Path) -> None:
    from agents.synthesis import stage_items
    from agents.synthesis.pipeline import synthesis_prompt_hashes
    from ingest.bundle.shape import ShapeTarget

    target = ShapeTarget(profiles=1, items_per_profile=2, single_fact_share=0.0, support_docs_per_item=2)
    config: dict[str, Any] = {**CONFIG, "target": target, "candidates_per_item": 1}
    _world(store, tmp_path, "syn-docs-few", **config)
    policy = SynthesisPolicy(builder_names_one_support=True)
    with synth_context(store, policy, tmp_path / "cache.sqlite", dataset="syn-docs-few", **config) as (ctx, _):
        assert {"synth_item_builder_docs", "synth_blind_solver_docs"} <= set(synthesis_prompt_hashes(ctx))
        report = stage_items.run(ctx)
    assert report.outcomes["accepted"] + report.outcomes.get("accepted_after_revision", 0) >= 1
    sent_back = [b for b in policy.seen("SupportDocsPlan") if len(b["messages"]) > 2]
    assert sent_back and "must name exactly 2 documents" in sent_back[0]["messages"][-1]["content"]
    # candidates_per_item=1 still searches 2N = 4 candidates, so every item gets two
    assert all(_view(b)["support_docs_wanted"] == 2 and len(_view(b)["candidates"]) >= 2 for b in sent_back)
    rows = _rows(store, "MATCH (i:Item {dataset: 'syn-docs-few'}) RETURN COUNT { (i)-[:SUPPORTED_BY]->() } AS n")
    assert rows and all(r["n"] == 2 for r in rows)


def test_support_docs_made_says_when_the_search_found_fewer_candidates() -> None:
    from agents.synthesis.items_plan import support_docs_made

    assert support_docs_made(2, 5) == (2, {})
    made, note = support_docs_made(3, 2)
    assert made == 2 and note["support_docs_wanted"] == 3 and note["support_docs_made"] == 2
    assert "found 2 candidate(s)" in str(note["why"])


@pytest.mark.usefixtures("isolated_config")
def test_one_support_doc_records_and_sends_only_the_single_document_prompts(store, tmp_path: Path) -> None:
    from agents.prompts.synthesis.support_docs import SUPPORT_DOCS_PROMPTS
    from agents.synthesis import stage_items
    from agents.synthesis.pipeline import synthesis_prompt_hashes
    from ingest.bundle.shape import ShapeTarget

    config: dict[str, Any] = {**CONFIG, "target": ShapeTarget(profiles=1, items_per_profile=2)}
    _world(store, tmp_path, "syn-docs-one", **config)
    policy = SynthesisPolicy()
    with synth_context(store, policy, tmp_path / "cache.sqlite", dataset="syn-docs-one", **config) as (ctx, _):
        hashes = synthesis_prompt_hashes(ctx)
        stage_items.run(ctx)
    assert not set(hashes) & SUPPORT_DOCS_PROMPTS
    assert {"synth_item_builder", "synth_blind_solver", "synth_item_verifier", "synth_augmenter"} <= set(hashes)
    recorded = _rows(store, "MATCH (s:SynthesisRun {id: 'synth-syn-docs-one'}) RETURN s.prompt_hashes AS h")
    assert recorded and json.loads(recorded[0]["h"]) == hashes
    assert policy.seen("ItemPlan") and not policy.seen("SupportDocsPlan")
    for body in policy.seen("BlindAnswer"):
        assert "pages" in _view(body) and "documents" not in _view(body)
