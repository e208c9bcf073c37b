"""A refused ingest writes nothing, not even `IngestStarted` (issue 31.2): pre-flight keys for a gate's verdict
and an item's augmentation, a restated document link beside a changed copy, duplicated archive members and a
truncated last line. Each case counts the events of the log before and after the refused ingest."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graph.events import DocumentsLinked, NewEvent
from graph.store import EventStore
from ingest.adapters import AdapterResult
from ingest.errors import InputError
from ingest.pipeline import load_input, write_events
from tests.conftest import MINI_BUNDLE
from tests.graph_counts import count

pytestmark = pytest.mark.neo4j

Records = list[dict[str, Any]]


def _bundle(folder: Path, edit: Callable[[Records], None] | None = None, kind: str = "items") -> Path:
    """The mini bundle with a verdict of the History Gate on its first item and its second item augmented from the
    first (then `edit` applied to the `kind` records)."""
    shutil.copytree(MINI_BUNDLE, folder)
    items = _read(folder / "items.jsonl")
    items[0]["verifications"] = [{"gate": "history", "verdict": "pass"}]
    items[1]["augmented_from"] = {"from_item_id": items[0]["item_id"], "direction": "recombine"}
    _write(folder / "items.jsonl", items)
    if edit is not None:
        records = _read(folder / f"{kind}.jsonl")
        edit(records)
        _write(folder / f"{kind}.jsonl", records)
    return folder


def _read(path: Path) -> Records:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(path: Path, records: Records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _events(store: EventStore) -> tuple[int, int]:
    """(events in the log, IngestStarted events among them)."""
    total = count(store.driver, "MATCH (e:Event) RETURN count(e)")
    started = count(store.driver, "MATCH (e:Event {type: 'IngestStarted'}) RETURN count(e)")
    return total, started


def _refused(store: EventStore, run: Callable[[], object]) -> str:
    """Run a refused ingest; assert it wrote no event (and the head did not move); return its problems."""
    before, head = _events(store), store.head()
    with pytest.raises(InputError) as caught:
        run()
    assert _events(store) == before and store.head() == head
    return str(caught.value)


@pytest.fixture
def ingested(store: EventStore, tmp_path: Path) -> EventStore:
    write_events(store, load_input(_bundle(tmp_path / "first")))
    assert _events(store)[1] == 1
    return store


def test_reingesting_the_bundle_with_its_gates_unchanged_is_a_no_op(ingested: EventStore, tmp_path: Path) -> None:
    before = _events(ingested)
    report = write_events(ingested, load_input(_bundle(tmp_path / "again")))
    assert report.appended == 0 and _events(ingested) == before


def test_another_verdict_of_a_gate_already_in_the_graph_is_refused(ingested: EventStore, tmp_path: Path) -> None:
    def fail(items: Records) -> None:
        items[0]["verifications"] = [{"gate": "history", "verdict": "fail"}]

    text = _refused(ingested, lambda: write_events(ingested, load_input(_bundle(tmp_path / "b", fail))))
    assert "verification of item i-mini-01 by gate history" in text and "already holds 1" in text
    verdicts = count(ingested.driver, "MATCH (i:Item {id: 'i-mini-01'}) RETURN size(i.verifications)")
    assert verdicts == 1


def test_a_verdict_of_a_new_gate_is_added(ingested: EventStore, tmp_path: Path) -> None:
    def another_gate(items: Records) -> None:
        items[0]["verifications"].append({"gate": "final", "verdict": "pass"})

    before = _events(ingested)
    report = write_events(ingested, load_input(_bundle(tmp_path / "b", another_gate)))
    assert report.appended == 1  # the new verdict (bracketed by its own IngestStarted and IngestCompleted)
    assert _events(ingested) == (before[0] + 3, before[1] + 1)
    assert count(ingested.driver, "MATCH (i:Item {id: 'i-mini-01'}) RETURN size(i.verifications)") == 2


def test_two_verdicts_of_one_gate_in_one_input_are_refused(ingested: EventStore, tmp_path: Path) -> None:
    def restated_and_changed(items: Records) -> None:
        items[0]["verifications"].append({"gate": "history", "verdict": "fail"})

    text = _refused(ingested, lambda: write_events(ingested, load_input(_bundle(tmp_path / "b", restated_and_changed))))
    assert "verification of item i-mini-01 by gate history" in text and "states it 2 times" in text


def test_another_source_or_direction_of_an_augmented_item_is_refused(ingested: EventStore, tmp_path: Path) -> None:
    def other_direction(items: Records) -> None:
        items[1]["augmented_from"]["direction"] = "replace"

    text = _refused(ingested, lambda: write_events(ingested, load_input(_bundle(tmp_path / "b", other_direction))))
    assert "AUGMENTED_FROM of item i-mini-02" in text
    assert count(ingested.driver, "MATCH (:Item {id: 'i-mini-02'})-[r:AUGMENTED_FROM]->() RETURN count(r)") == 1


def test_a_restated_link_beside_a_changed_copy_is_refused_before_the_first_event(ingested: EventStore) -> None:
    """A bundle cannot state a pair twice (its validator refuses it), so the input is built from the bundle's
    events, as another adapter could produce it: the pre-flight check is what stops it."""
    result = load_input(MINI_BUNDLE)
    link = next(e.event for e in result.events if isinstance(e.event, DocumentsLinked))
    changed = NewEvent(link.model_copy(update={"weight": link.weight / 2, "description": "changed"}), actor="ingest")
    both = AdapterResult(result.dataset, [*result.events, changed], result.counts)
    text = _refused(ingested, lambda: write_events(ingested, both))
    assert f"RELATED {link.src_doc_id}->{link.dst_doc_id}" in text and "states it 2 times" in text
    pair = {"s": link.src_doc_id, "d": link.dst_doc_id}
    assert count(ingested.driver, "MATCH (:Document {id: $s})-[r:RELATED]->(:Document {id: $d}) RETURN count(r)",
                 **pair) == 1


def test_a_changed_link_alone_is_refused_as_before(ingested: EventStore, tmp_path: Path) -> None:
    def lighter(links: Records) -> None:
        links[0]["weight"] = 0.25

    text = _refused(ingested, lambda: write_events(ingested, load_input(_bundle(tmp_path / "b", lighter, "doc_links"))))
    assert "already holds 1 such relationship(s)" in text


def test_a_disclosure_added_to_a_turn_of_an_earlier_input_is_refused(ingested: EventStore, tmp_path: Path) -> None:
    """Found by the fuzzing drill: a turn that disclosed one fact, restated with a second, used to pass (the
    graph held only what the input restated) and gained a disclosure its first input never stated."""

    def one_more(sessions: Records) -> None:
        sessions[0]["turns"][0]["disclosed_fact_ids"].append("mini-f-asthma")

    text = _refused(ingested, lambda: write_events(ingested, load_input(_bundle(tmp_path / "b", one_more, "sessions"))))
    assert "DISCLOSES of turn mini-s-1-t0" in text and "holds 1 such relationship(s)" in text and "adds 1 more" in text


def test_a_first_disclosure_for_a_turn_of_an_earlier_input_is_refused(ingested: EventStore, tmp_path: Path) -> None:
    """Also found by the drill: a turn that disclosed nothing gained a disclosure (the graph held 0 under it)."""

    def first_one(sessions: Records) -> None:
        turn = next(t for t in sessions[2]["turns"] if t["role"] == "user" and not t.get("disclosed_fact_ids"))
        turn["disclosed_fact_ids"] = ["mini-f-knee"]

    changed = _bundle(tmp_path / "b", first_one, "sessions")
    text = _refused(ingested, lambda: write_events(ingested, load_input(changed)))
    assert "DISCLOSES of turn mini-s-3-" in text and "holds 0 such relationship(s)" in text


def test_an_archive_with_a_duplicated_member_is_refused(ingested: EventStore, tmp_path: Path) -> None:
    folder = _bundle(tmp_path / "b")
    archive = tmp_path / "dup.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="bundle")
        changed = (folder / "items.jsonl").read_bytes().replace(b'"pass"', b'"fail"')
        info = tarfile.TarInfo("./bundle/items.jsonl")
        info.size = len(changed)
        tar.addfile(info, io.BytesIO(changed))
    text = _refused(ingested, lambda: write_events(ingested, load_input(archive)))
    assert "dup.tar.gz!./bundle/items.jsonl: (member): a second member with this path" in text


def test_a_truncated_last_line_is_named_as_such_and_refused(ingested: EventStore, tmp_path: Path) -> None:
    folder = _bundle(tmp_path / "b")
    path = folder / "items.jsonl"
    data = path.read_text(encoding="utf-8")
    lines = data.count("\n")
    cut = data[: data.rindex('"reference_answer"') + 30] + "\n"  # the copy stopped inside a string
    path.write_text(cut, encoding="utf-8")
    text = _refused(ingested, lambda: write_events(ingested, load_input(folder)))
    assert f"items.jsonl:{lines}: (json): truncated line" in text
    assert "Invalid control character" not in text


def test_a_strict_validation_refusal_writes_nothing_either(ingested: EventStore, tmp_path: Path) -> None:
    def derived_clash(items: Records) -> None:
        items[1]["requirements"][0]["requirement_id"] = f"{items[0]['item_id']}-r0"

    text = _refused(ingested, lambda: write_events(ingested, load_input(_bundle(tmp_path / "b", derived_clash))))
    assert "requirement_id" in text
