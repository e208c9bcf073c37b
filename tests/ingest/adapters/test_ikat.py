"""TREC iKAT topics -> events (no Neo4j): mapping, gold, qrels, determinism, errors, real-data counts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from graph.events import FactDisclosed, ItemCreated, RequirementMapped, SessionStarted, TurnAppended
from ingest.adapters import AdapterResult
from ingest.adapters.ikat import load_ikat
from ingest.errors import InputError
from tests.ingest.adapters.test_projection_check import assert_ids_prefixed, check_events, event_ids
from tests.paths import FIXTURES

FIXTURES = FIXTURES / "ikat"
P = "ikat:2023-test:9-1"


def _of(result: AdapterResult, kind: type) -> list[Any]:
    return [new.event for new in result.events if isinstance(new.event, kind)]


def _by_id(result: AdapterResult, kind: type, key: str) -> dict[str, Any]:
    return {getattr(e, key): e for e in _of(result, kind)}


@pytest.fixture()
def ikat_2023() -> AdapterResult:
    return load_ikat(FIXTURES / "2023_test_topics.json")


def test_2023_file_gives_consistent_events_and_counts(ikat_2023: AdapterResult) -> None:
    types = check_events(ikat_2023.events)
    assert ikat_2023.dataset == "ikat-2023-test"
    assert_ids_prefixed(ikat_2023, ("ikat:2023-test:", "ikat-psg:"))
    c = ikat_2023.counts
    assert (
        c["topics"],
        c["turns"],
        c["ptkb_statements"],
        c["turns_with_gold_ptkb"],
        c["gold_ptkb_links"],
        c["turns_with_passage_provenance"],
        c["passages_with_text"],
    ) == (2, 5, 5, 3, 4, 3, 3)
    assert c["items"] == 4  # 9-1 turn 2 has no gold
    assert types["ProfileCreated"] == 2 and types["DocumentIngested"] == 3 and types["SessionStarted"] == 4
    assert types["TurnAppended"] == 5 + 2 * 5 and types["FactDisclosed"] == 5


def test_ptkb_session_states_each_statement_verbatim_and_discloses_its_fact(ikat_2023: AdapterResult) -> None:
    sessions = _by_id(ikat_2023, SessionStarted, "session_id")
    assert sessions[f"{P}:ptkb"].ordinal == 0 and sessions[f"{P}:conv"].ordinal == 1
    assert sessions[f"{P}:conv"].topic_id == f"{P}:topic"
    turns = _by_id(ikat_2023, TurnAppended, "turn_id")
    assert turns[f"{P}:ptkb:1"].text == "I'm vegetarian." and turns[f"{P}:ptkb:1"].role == "user"
    disclosed = {(e.fact_id, e.turn_id) for e in _of(ikat_2023, FactDisclosed)}
    assert (f"{P}:fact:2", f"{P}:ptkb:2") in disclosed


def test_conversation_alternates_user_utterance_and_canonical_response(ikat_2023: AdapterResult) -> None:
    conv = [t for t in _of(ikat_2023, TurnAppended) if t.session_id == f"{P}:conv"]
    assert [t.role for t in conv] == ["user", "assistant"] * 3
    assert conv[0].text == "Can you help me find a diet for myself?"
    assert conv[0].metadata["resolved_utterance"].startswith("Can you help me find a diet for myself considering")
    assert conv[1].text.startswith("Sure: a vegan Mediterranean diet")


def test_item_requirement_names_gold_facts_their_turns_and_whole_passage_spans(ikat_2023: AdapterResult) -> None:
    item = _by_id(ikat_2023, ItemCreated, "item_id")[f"{P}:item:1"]
    assert item.question == "Can you help me find a diet for myself?"
    assert item.reference_answer.startswith("Sure: a vegan Mediterranean diet")
    assert item.dataset == "ikat-2023-test" and {"personalized", "multi_fact", "grounded"} <= set(item.labels)
    req = _by_id(ikat_2023, RequirementMapped, "item_id")[f"{P}:item:1"]
    assert req.fact_ids == [f"{P}:fact:1", f"{P}:fact:2"]
    assert req.turn_ids == [f"{P}:ptkb:1", f"{P}:ptkb:2"]
    # the repeated provenance id is counted once; passages are stripped to their two lines / one line
    assert [(s.doc_id, s.start_line, s.end_line) for s in req.spans] == [
        ("ikat-psg:clueweb22-en0035-25-01897:1", 1, 2),
        ("ikat-psg:clueweb22-en0004-30-08099:2", 1, 1),
    ]
    assert item.support_doc_ids == [s.doc_id for s in req.spans]
    assert any("lists an id twice" in w for w in ikat_2023.warnings)


def test_item_metadata_marks_where_its_history_ends(ikat_2023: AdapterResult) -> None:
    items = _by_id(ikat_2023, ItemCreated, "item_id")
    first, third = items[f"{P}:item:1"], items[f"{P}:item:3"]
    assert first.metadata["asked_in_turn_id"] == f"{P}:conv:1:user"
    assert first.metadata["asked_after_turn_id"] == f"{P}:ptkb:3"  # history = the ptkb session only
    assert third.metadata["asked_after_turn_id"] == f"{P}:conv:2:assistant"


def test_ptkb_qrels_go_into_item_metadata_and_unattached_judgements_are_warned(ikat_2023: AdapterResult) -> None:
    item = _by_id(ikat_2023, ItemCreated, "item_id")[f"{P}:item:1"]
    assert item.metadata["ptkb_rel_org"] == {"1": 1, "2": 1, "3": 0}
    assert item.metadata["ptkb_rel_nist"] == {"1": 1, "2": 0, "3": 0}
    assert "ptkb_rel_nist" not in _by_id(ikat_2023, ItemCreated, "item_id")[f"{P}:item:3"].metadata
    assert any("ptkb_rel_nist: 9-1_2" in w and "no item" in w for w in ikat_2023.warnings)
    assert ikat_2023.counts["ptkb_rel_org_turns"] == 3


def test_2025_list_ptkb_gets_positional_ids_and_relevant_statements_match_by_text() -> None:
    result = load_ikat(FIXTURES / "2025_test_topics.json")
    check_events(result.events)
    assert result.dataset == "ikat-2025-test" and result.counts["unresolved_ptkb_links"] == 0
    req = _by_id(result, RequirementMapped, "item_id")["ikat:2025-test:1-1:item:2"]
    assert req.fact_ids == ["ikat:2025-test:1-1:fact:2", "ikat:2025-test:1-1:fact:1"]
    assert req.spans == []
    item = _by_id(result, ItemCreated, "item_id")["ikat:2025-test:1-1:item:2"]
    assert item.metadata["citations"] == ["clueweb22-en0022-52-08268:1", "clueweb22-en0041-54-06342:6"]
    assert "ikat:2025-test:1-1:item:1" not in _by_id(result, ItemCreated, "item_id")  # no gold, no item


def test_2024_provenance_without_passage_text_stays_in_metadata() -> None:
    result = load_ikat(FIXTURES / "2024_test_topics.json")
    check_events(result.events)
    item = _by_id(result, ItemCreated, "item_id")["ikat:2024-test:0:item:1"]
    assert item.metadata["response_provenance"] == ["clueweb22-en0023-79-17324:0"]
    assert item.support_doc_ids == [] and _of(result, RequirementMapped)[0].spans == []
    assert result.counts["passages_with_text"] == 0


def test_folder_loads_every_topics_file_with_counts_per_set() -> None:
    result = load_ikat(FIXTURES)
    check_events(result.events)
    assert result.dataset == "ikat"
    assert result.counts["2023-test.topics"] == 2 and result.counts["2025-test.topics"] == 1
    assert result.counts["profiles"] == 4 and result.counts["documents"] == 3
    assert {e.dataset for e in _of(result, ItemCreated)} == {"ikat-2023-test", "ikat-2024-test", "ikat-2025-test"}


def test_loading_twice_gives_identical_event_ids() -> None:
    assert event_ids(load_ikat(FIXTURES)) == event_ids(load_ikat(FIXTURES))


def test_unknown_ptkb_reference_is_warned_and_kept_in_metadata(tmp_path: Path) -> None:
    topics = json.loads((FIXTURES / "2023_test_topics.json").read_text())
    topics[0]["turns"][0]["ptkb_provenance"] = [1, 42]
    (tmp_path / "2023_test_topics.json").write_text(json.dumps(topics))
    result = load_ikat(tmp_path / "2023_test_topics.json")
    item = _by_id(result, ItemCreated, "item_id")[f"{P}:item:1"]
    assert item.metadata["unresolved_ptkbs"] == ["42"]
    assert _by_id(result, RequirementMapped, "item_id")[f"{P}:item:1"].fact_ids == [f"{P}:fact:1"]
    assert any("'42' matches no PTKB statement" in w for w in result.warnings)


def test_malformed_topic_is_rejected_naming_file_and_field(tmp_path: Path) -> None:
    topics = json.loads((FIXTURES / "2023_test_topics.json").read_text())
    del topics[1]["turns"][0]["response"]
    topics[0]["turns"][1]["turn_id"] = 1
    path = tmp_path / "2023_test_topics.json"
    path.write_text(json.dumps(topics))
    with pytest.raises(InputError) as err:
        load_ikat(path)
    message = str(err.value)
    assert str(path) in message
    assert "[1].turns[0].response" in message and "[0].turns[1].turn_id: duplicate turn_id 1" in message


def test_malformed_passage_and_qrels_lines_name_file_and_line(tmp_path: Path) -> None:
    for name in ("2023_test_topics.json", "ptkb_rel_org"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    (tmp_path / "2023_test_topics_psg_text.jsonl").write_text(
        '{"doc_id": "clueweb22-en0035-25-01897", "passage_id": "1", "passage_text": "x"}\n{"doc_id": "d"}\n'
    )
    (tmp_path / "ptkb_rel_nist").write_text("9-1_1 0 1 1\n9-1_1 0 2\n")
    with pytest.raises(InputError) as err:
        load_ikat(tmp_path)
    message = str(err.value)
    assert f"{tmp_path / '2023_test_topics_psg_text.jsonl'}:2: passage_id" in message
    assert f"{tmp_path / 'ptkb_rel_nist'}:2: (line)" in message


def test_broken_json_is_rejected_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "2024_test_topics.json"
    path.write_text('[\n  {"number": 0,\n  "title": }\n]')
    with pytest.raises(InputError, match=r"2024_test_topics.json:3: \(json\)"):
        load_ikat(path)


# --- the real topics (../shared) -----------------------------------------------------------------------

# SOURCE.md: topics, turns, PTKB statements, turns with gold PTKB, turns with passage provenance, passages
SOURCE_COUNTS = {
    "2023-test": (25, 332, 262, 112, 280, 700),
    "2023-train": (11, 95, 101, 42, 76, 194),
    "2024-test": (17, 218, None, 95, 191, 0),
    "2025-test": (17, 188, None, 64, 157, 0),
}


def test_real_topics_match_source_md_counts(shared_dir: Path) -> None:
    result = load_ikat(shared_dir / "data" / "trec_ikat")
    types = check_events(result.events)
    c = result.counts
    for tag, expected in SOURCE_COUNTS.items():
        got = (
            c[f"{tag}.topics"],
            c[f"{tag}.turns"],
            c[f"{tag}.ptkb_statements"],
            c[f"{tag}.turns_with_gold_ptkb"],
            c[f"{tag}.turns_with_passage_provenance"],
            c[f"{tag}.passages_with_text"],
        )
        assert all(e is None or e == g for e, g in zip(expected, got, strict=True)), (tag, got)
        assert c[f"{tag}.unresolved_ptkb_links"] == 0 and c[f"{tag}.provenance_links_without_text"] == 0
    assert c["2023-test.gold_ptkb_links"] == 182
    assert c["2023-test.ptkb_rel_nist_turns"] == 98 and c["2023-test.ptkb_rel_org_turns"] == 112
    assert c["documents"] == 894 == types["DocumentIngested"]
    assert c["profiles"] == 70 == types["ProfileCreated"]
