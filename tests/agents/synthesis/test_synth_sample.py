"""The bundled `synth-sample`: it passes `check` with the paper's proportions (>= 10 profiles, >= 100 items, about
a third single-fact, one support document per item) and no shape warning, is small on disk, and the real
`synth all --replay` over its KB subset rebuilds it byte for byte from its recorded replies; the replay
endpoint refuses a request it has no reply for; `run` warns on stderr about a one-sided or too-small dataset
before it starts."""

from __future__ import annotations

import importlib.util
import json
import urllib.error
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from typer.testing import CliRunner

from cli import app
from tests.conftest import emptied_store
from tests.paths import REPO

SYNTH_SAMPLE = REPO / "samples" / "colabench-synth-sample"
RUN_MINI = ["run", "--methods", "RAW_TURNS", "--dataset", "mini", "--items", "1", "--judges", "none", "--fresh",
            "--no-report"]  # fmt: skip


def _build_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("synth_sample_build", REPO / "scripts" / "synth_sample" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_synth_sample_passes_check_with_the_papers_proportions_and_stays_small() -> None:
    from ingest.bundle.check import bundle_shape
    from ingest.bundled import bundled_path
    from ingest.validation import validate_bundle

    assert bundled_path("synth-sample") == SYNTH_SAMPLE
    bundle, report, _events = validate_bundle(SYNTH_SAMPLE)
    assert report.ok, report.problems[:5]
    assert bundle.name == "synth-sample" and report.warnings == []
    shape = bundle_shape(bundle)
    assert shape.profiles >= 10 and shape.items >= 100
    assert 0.28 <= shape.single_fact_share <= 0.38, shape
    assert shape.support_docs_per_item == 1.0 and shape.augmented_per_initial is not None
    items = [json.loads(line) for line in (SYNTH_SAMPLE / "items.jsonl").read_text().splitlines()]
    assert all("history_dependent" in i["labels"] for i in items)
    on_disk = sum(p.stat().st_size for p in SYNTH_SAMPLE.iterdir())
    assert on_disk < 4_000_000, on_disk
    manifest = json.loads((SYNTH_SAMPLE / "bundle.json").read_text())
    assert "CC BY 4.0" in manifest["licence"] and any("MedQuAD" in a for a in manifest["attribution"])
    assert "not a benchmark" in manifest["description"]


def test_a_replay_endpoint_refuses_a_request_it_has_no_reply_for(tmp_path: Path) -> None:
    from agents.synthesis.replay import FORMAT, RecordedReplies, ReplayServer, request_hash

    known = {"model": "m", "messages": [{"role": "user", "content": "hello"}], "temperature": 0.0}
    path = tmp_path / "replies.jsonl"
    path.write_text(
        json.dumps({"format": FORMAT, "model": "m"})
        + "\n"
        + json.dumps({"request": request_hash(known), "role": "plain", "message": {"content": "hi"}})
        + "\n"
    )
    replies = RecordedReplies.load(path)
    with ReplayServer(replies, replies.model) as server:

        def post(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
            request = urllib.request.Request(
                f"{server.base_url}/chat/completions", json.dumps(body).encode(), {"content-type": "application/json"}
            )
            try:
                with urllib.request.urlopen(request, timeout=10) as reply:
                    return reply.status, json.loads(reply.read())
            except urllib.error.HTTPError as refused:
                return refused.code, json.loads(refused.read())

        status, answer = post(known)
        assert status == 200 and answer["choices"][0]["message"]["content"] == "hi"
        other = {**known, "messages": [{"role": "user", "content": "hello!"}]}
        status, answer = post(other)
    assert status == 404 and request_hash(other) in answer["error"]["message"]
    assert server.misses == [(request_hash(other), "plain")] and replies.served == {request_hash(known)}


@pytest.mark.neo4j
@pytest.mark.usefixtures("isolated_config")
def test_synth_all_replays_the_recorded_replies_into_the_committed_bundle_byte_for_byte(
    driver, encoder, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    build = _build_module()
    emptied_store(driver, encoder)
    kb = tmp_path / "kb.jsonl"
    kb.write_text("\n".join(build.kb_records()) + "\n", encoding="utf-8")
    runner = CliRunner()
    ingested = runner.invoke(app, ["ingest", str(kb)])
    assert ingested.exit_code == 0, ingested.output
    out = tmp_path / "rebuilt"
    rebuilt = runner.invoke(app, ["synth", "all", *build.SYNTH_ARGS, "--replay", str(build.REPLIES), "--out", str(out)])
    assert rebuilt.exit_code == 0, rebuilt.output[-3000:]
    assert "no recorded reply" not in rebuilt.output
    build.finish_manifest(out)
    differ = [n for n in build.BUNDLE_FILES if (out / n).read_bytes() != (SYNTH_SAMPLE / n).read_bytes()]
    assert differ == [], differ
    assert build.fingerprint(out) == build.fingerprint(SYNTH_SAMPLE)


@pytest.mark.neo4j
def test_run_warns_on_stderr_before_it_starts_when_the_shape_is_uninformative(
    mini_store, isolated_config, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from tests.fake_openai import FakeOpenAI
    from tests.fake_openai.policy import AutoPolicy

    with FakeOpenAI(AutoPolicy()) as fake:
        monkeypatch.setenv("COLABENCH_LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("COLABENCH_LLM_MODEL", "fake-model")
        result = CliRunner().invoke(app, RUN_MINI)
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if "shape warning" in line]
    assert len(warned) == 1, result.stderr
    assert "only 2 profile(s) have items" in warned[0]
    # before the batch starts: the warning precedes the batch line in the interleaved output
    assert result.output.index("shape warning") < result.output.index("batch ")
