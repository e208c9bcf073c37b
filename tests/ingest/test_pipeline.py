"""Ingest into the real Neo4j: counts, idempotence, rejected inputs write nothing, kill-and-resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graph.cypher_files import load_cypher
from graph.events import IngestStarted, NewEvent
from graph.fingerprint import compute_fingerprint
from graph.hashing import text_sha256
from graph.integrity import verify_chain
from graph.store import EventStore
from ingest.errors import InputError
from ingest.pipeline import load_input, write_events
from tests.graph_counts import count
from tests.paths import FIXTURES, REPO

MINI = FIXTURES / "mini_bundle"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=600,
    )


def test_mini_bundle_projects_what_the_bundle_holds(store: EventStore) -> None:
    result = load_input(MINI)
    report = write_events(store, result, batch_size=25)
    counts = result.counts
    d = store.driver
    assert report.appended == len(result.events)
    assert count(d, "MATCH (n:Document) RETURN count(n)") == counts["documents"]
    assert count(d, "MATCH (n:Profile) RETURN count(n)") == counts["profiles"]
    assert count(d, "MATCH (n:Fact) RETURN count(n)") == counts["facts"]
    assert count(d, "MATCH (n:Session) RETURN count(n)") == counts["sessions"]
    assert count(d, "MATCH (n:Turn) RETURN count(n)") == counts["turns"]
    assert count(d, "MATCH (n:Item) RETURN count(n)") == counts["items"]
    assert count(d, "MATCH (n:Requirement) RETURN count(n)") == counts["requirements"]
    assert count(d, "MATCH ()-[r:RELATED]->() RETURN count(r)") == counts["doc_links"]
    # every chunk of every document is embedded with the configured encoder's dimension
    assert count(d, "MATCH (c:Chunk) WHERE size(c.embedding) <> 384 RETURN count(c)") == 0
    # each exposure in the graph comes from an assistant tool call of the bundle
    sessions = [json.loads(line) for line in (MINI / "sessions.jsonl").read_text().splitlines() if line.strip()]
    returned = sum(len(c["returned"]) for s in sessions for t in s["turns"] for c in t.get("tool_calls", []))
    assert count(d, "MATCH ()-[e:EXPOSED]->() RETURN count(e)") == returned


def test_reingesting_the_same_bundle_is_a_no_op(store: EventStore) -> None:
    result = load_input(MINI)
    write_events(store, result)
    before = compute_fingerprint(store.driver)
    head = store.head()
    again = write_events(store, load_input(MINI))
    assert again.appended == 0 and again.skipped == len(result.events)
    assert store.head() == head
    assert compute_fingerprint(store.driver).digest == before.digest


@pytest.mark.parametrize("name", ["malformed_json", "missing_field", "support_exposed", "non_finite_numbers"])
def test_a_bad_bundle_is_rejected_with_file_line_field_and_writes_nothing(store: EventStore, name: str) -> None:
    folder = FIXTURES / "bad_bundles" / name
    expected = json.loads((folder / "expected_problems.json").read_text())["problems"]
    with pytest.raises(InputError) as caught:
        load_input(folder)
    rendered = [str(p) for p in caught.value.problems]
    for problem in expected:
        prefix = f"{folder / problem['file']}:{problem['line']}: {problem['field']}:"
        assert any(line.startswith(prefix) for line in rendered), (prefix, rendered)
    assert store.head().seq == 0
    assert count(store.driver, "MATCH (n) WHERE NOT n:LogHead AND NOT n:ProjectionMeta RETURN count(n)") == 0


def test_cli_rejects_a_bad_bundle_with_exit_code_2_and_no_stack_trace(store: EventStore) -> None:
    done = _cli("ingest", str(FIXTURES / "bad_bundles" / "missing_field"))
    assert done.returncode == 2
    assert "items.jsonl:1: question: Field required" in done.stderr.replace("\n", "")
    assert "Traceback" not in done.stderr
    assert store.head().seq == 0


def test_a_conflicting_redefinition_is_refused_before_anything_is_written(store: EventStore, tmp_path: Path) -> None:
    write_events(store, load_input(MINI))
    head = store.head()
    first = json.loads((MINI / "documents.jsonl").read_text().splitlines()[0])
    changed = dict(first, text=first["text"] + "\nAn extra line.")
    kb = tmp_path / "kb.jsonl"
    kb.write_text(
        json.dumps({"doc_id": "new-doc", "title": "New", "text": "fresh"}) + "\n" + json.dumps(changed) + "\n"
    )
    with pytest.raises(InputError, match=first["doc_id"]):
        write_events(store, load_input(kb))
    assert store.head() == head
    assert count(store.driver, "MATCH (d:Document {id:'new-doc'}) RETURN count(d)") == 0


def _changed_mini(tmp_path: Path, kind: str, line: int, change: object) -> Path:
    """A copy of the mini bundle whose `kind`.jsonl record on `line` is passed through `change`."""
    folder = tmp_path / "mini-changed"
    shutil.copytree(MINI, folder)
    path = folder / f"{kind}.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[line - 1])
    change(record)  # type: ignore[operator]
    lines[line - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    return folder


def test_a_doc_link_whose_weight_changed_is_refused_before_anything_is_written(
    store: EventStore, tmp_path: Path
) -> None:
    write_events(store, load_input(MINI))
    head, links = store.head(), count(store.driver, "MATCH ()-[r:RELATED]->() RETURN count(r)")
    changed = _changed_mini(tmp_path, "doc_links", 1, lambda r: r.update(weight=0.5))
    with pytest.raises(InputError) as caught:
        write_events(store, load_input(changed))
    [problem] = caught.value.problems
    assert problem.field == "RELATED mini-tattoo-aftercare->mini-blood-donation"
    assert "already holds 1 such relationship(s)" in problem.message
    assert store.head() == head
    assert count(store.driver, "MATCH ()-[r:RELATED]->() RETURN count(r)") == links


def test_changed_exposure_lines_or_disclosures_of_an_existing_turn_are_refused(
    store: EventStore, tmp_path: Path
) -> None:
    write_events(store, load_input(MINI))
    head = store.head()

    def shift_lines(session: dict) -> None:  # type: ignore[type-arg]
        span = session["turns"][1]["tool_calls"][0]["returned"][0]
        span["end_line"] = span["start_line"]  # same documents, so the turn event itself is unchanged

    with pytest.raises(InputError) as caught:
        write_events(store, load_input(_changed_mini(tmp_path / "a", "sessions", 1, shift_lines)))
    assert [p.field for p in caught.value.problems] == ["EXPOSED of turn mini-s-1-t1"]

    def other_fact(session: dict) -> None:  # type: ignore[type-arg]
        session["turns"][2]["disclosed_fact_ids"] = ["mini-f-tattoo"]

    with pytest.raises(InputError) as caught:
        write_events(store, load_input(_changed_mini(tmp_path / "b", "sessions", 1, other_fact)))
    assert [p.field for p in caught.value.problems] == ["DISCLOSES of turn mini-s-1-t2"]
    assert store.head() == head


def test_a_resumed_ingest_whose_batch_split_a_turns_exposures_is_not_refused(store: EventStore) -> None:
    events = load_input(MINI).events
    exposures = [i for i, e in enumerate(events) if e.event.TYPE == "DocumentExposed"]
    first_turn = events[exposures[0]].event.turn_id  # type: ignore[attr-defined]
    same_turn = [i for i in exposures if events[i].event.turn_id == first_turn]  # type: ignore[attr-defined]
    assert len(same_turn) >= 2
    # Killed after the turn's first exposure was committed (the ingest's IngestStarted came first, as always).
    ids = [e.event.event_id() for e in events]
    opened = IngestStarted(ingest_id=f"ingest-{text_sha256(chr(10).join(ids))[:16]}", dataset="mini", n_events=len(ids))
    store.append([NewEvent(opened, actor="ingest"), *events[: same_turn[0] + 1]])
    report = write_events(store, load_input(MINI))
    assert report.appended == len(events) - same_turn[0] - 1
    total = sum(
        len(c["returned"])
        for line in (MINI / "sessions.jsonl").read_text().splitlines()
        if line.strip()
        for t in json.loads(line)["turns"]
        for c in t.get("tool_calls", [])
    )
    assert count(store.driver, "MATCH ()-[e:EXPOSED]->() RETURN count(e)") == total


def test_a_knowledge_base_jsonl_with_a_bad_line_names_it_and_writes_nothing(store: EventStore, tmp_path: Path) -> None:
    kb = tmp_path / "kb.jsonl"
    kb.write_text(
        json.dumps({"doc_id": "a", "title": "A", "text": "alpha"})
        + "\n"
        + json.dumps({"doc_id": "b", "title": "B"})
        + "\n"
        + "{not json\n"
    )
    with pytest.raises(InputError) as caught:
        load_input(kb)
    rendered = "\n".join(str(p) for p in caught.value.problems)
    assert f"{kb}:2: text: Field required" in rendered
    assert f"{kb}:3: (json): not valid JSON" in rendered
    assert store.head().seq == 0


def test_kill_during_ingest_then_resume_gives_the_same_graph(store: EventStore) -> None:
    total = len(load_input(MINI).events)
    env = {"COLABENCH_INGEST_THROTTLE_S": "2.0"}  # batches slow enough that the kill lands mid-ingest
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "ingest", str(MINI), "--batch-size", "10"],
        cwd=REPO,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300  # a generous bound on a condition
    while store.head().seq < 20 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    partial = store.head().seq
    assert 0 < partial < total, "the kill should land mid-ingest"
    summary = _cli("graph", "summary")
    said = " ".join(summary.stderr.split())
    # Killed outright, the ingest could not take its lease away (graph/ingest_lease.py): until the lease expires
    # it reads as in progress by the dead pid, then as interrupted (tests/graph/test_ingest_lease.py looks past it).
    assert "mini" in said and f"pid {process.pid}" in said, said
    assert "ingest in progress: mini" in said or "was interrupted" in said, said
    resumed = _cli("ingest", str(MINI), "--batch-size", "10")
    assert resumed.returncode == 0, resumed.stderr
    assert store.head().seq == total + 2  # and IngestStarted / IngestCompleted around them, once each
    assert count(store.driver, "MATCH (i:Ingest {status: 'complete'}) RETURN count(i)") == 1
    assert verify_chain(store.read(), expected_head=store.head().hash).ok
    interrupted = compute_fingerprint(store.driver)
    with store.driver.session() as session:
        session.run(load_cypher("admin/delete_everything")).consume()
    store.ensure_schema()
    write_events(store, load_input(MINI))
    assert compute_fingerprint(store.driver).digest == interrupted.digest


def test_cli_ingest_prints_counts_and_graph_rebuild_check_passes(store: EventStore) -> None:
    done = _cli("ingest", str(MINI))
    assert done.returncode == 0, done.stderr
    assert "events appended" in done.stdout
    rebuilt = _cli("graph", "rebuild", "--check")
    assert rebuilt.returncode == 0, rebuilt.stderr + rebuilt.stdout
    assert "fingerprint unchanged" in rebuilt.stdout
    verified = _cli("events", "verify")
    assert verified.returncode == 0 and "chain intact" in verified.stdout


@pytest.mark.parametrize("fixture", ["ikat", "locomo", "longmemeval"])
def test_dataset_adapter_fixtures_project_into_neo4j(store: EventStore, fixture: str) -> None:
    result = load_input(FIXTURES / fixture)
    report = write_events(store, result)
    assert report.appended == len(result.events) > 0
    assert count(store.driver, "MATCH (i:Item) RETURN count(i)") > 0
    assert count(store.driver, "MATCH (i:Item) WHERE NOT (i)-[:HAS_REQUIREMENT]->() RETURN count(i)") == 0
