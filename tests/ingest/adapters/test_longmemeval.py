"""LongMemEval S/oracle -> events (no Neo4j): haystacks, evidence turns and sessions, abstention, errors, counts."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from graph.events import ItemCreated, ProfileCreated, RequirementMapped, SessionStarted, TurnAppended
from ingest.adapters import AdapterResult
from ingest.adapters.longmemeval import load_longmemeval
from ingest.errors import InputError
from tests.ingest.adapters.test_projection_check import assert_ids_prefixed, check_events, event_ids
from tests.paths import FIXTURES

FIXTURES = FIXTURES / "longmemeval"
S_FILE = FIXTURES / "longmemeval_s_mini.json"


def _of(result: AdapterResult, kind: type) -> list[Any]:
    return [new.event for new in result.events if isinstance(new.event, kind)]


def _by_id(result: AdapterResult, kind: type, key: str) -> dict[str, Any]:
    return {getattr(e, key): e for e in _of(result, kind)}


@pytest.fixture(scope="module")
def s_mini() -> AdapterResult:
    return load_longmemeval(S_FILE)


def test_s_file_gives_one_profile_per_question_with_consistent_events(s_mini: AdapterResult) -> None:
    types = check_events(s_mini.events)
    assert_ids_prefixed(s_mini, ("lme-s:",))
    assert s_mini.dataset == "longmemeval-s"
    assert [p.profile_id for p in _of(s_mini, ProfileCreated)] == ["lme-s:q1", "lme-s:q2", "lme-s:q3_abs"]
    c = s_mini.counts
    assert (c["questions"], c["sessions"], c["turns"], c["has_answer_turns"], c["abstention"]) == (3, 8, 16, 2, 1)
    assert (c["sessions_min"], c["sessions_max"]) == (2, 4)
    assert types["ItemCreated"] == types["RequirementMapped"] == 3


def test_haystack_sessions_keep_order_original_id_and_date(s_mini: AdapterResult) -> None:
    sessions = [s for s in _of(s_mini, SessionStarted) if s.profile_id == "lme-s:q1"]
    assert [s.ordinal for s in sessions] == [0, 1, 2, 3]
    assert sessions[1].session_id == "lme-s:q1:answer_q1_1" and sessions[1].source_id == "answer_q1_1"
    assert sessions[1].started_at == "2023/05/22 (Mon) 10:00"
    assert sessions[1].metadata["started_at_iso"] == "2023-05-22T10:00:00"
    assert s_mini.counts["sessions_out_of_date_order"] == 1  # index 3 is dated before index 2


def test_a_session_id_repeated_in_a_haystack_gets_a_distinct_id_and_a_warning(s_mini: AdapterResult) -> None:
    ids = [s.session_id for s in _of(s_mini, SessionStarted) if s.profile_id == "lme-s:q1"]
    assert ids[0] == "lme-s:q1:sharegpt_a_0" and ids[2] == "lme-s:q1:sharegpt_a_0@2"
    assert s_mini.counts["duplicate_session_ids"] == 1
    assert any("'sharegpt_a_0' listed again at index 2" in w for w in s_mini.warnings)


def test_turns_keep_role_and_has_answer(s_mini: AdapterResult) -> None:
    turns = _by_id(s_mini, TurnAppended, "turn_id")
    evidence = turns["lme-s:q1:answer_q1_1:0"]
    assert evidence.role == "user" and evidence.metadata == {"has_answer": True}
    assert turns["lme-s:q1:answer_q1_1:1"].metadata == {"has_answer": False}
    assert turns["lme-s:q1:sharegpt_a_0:0"].metadata == {}
    assert turns["lme-s:q1:ultrachat_9:1"].text == "" and s_mini.counts["empty_turns"] == 1


def test_item_carries_question_answer_type_and_date(s_mini: AdapterResult) -> None:
    items = _by_id(s_mini, ItemCreated, "item_id")
    item = items["lme-s:q1:q"]
    assert (item.question, item.reference_answer, item.question_type) == (
        "Where do I keep my old sneakers?",
        "in a shoe rack in my closet",
        "single-session-user",
    )
    assert item.asked_at == "2023/06/23 (Fri) 07:31" and item.metadata["asked_at_iso"] == "2023-06-23T07:31:00"
    assert item.dataset == "longmemeval-s" and item.labels == []
    assert items["lme-s:q2:q"].reference_answer == "3"  # int answers are stringified


def test_requirement_lists_every_has_answer_turn_and_the_answer_sessions(s_mini: AdapterResult) -> None:
    reqs = _by_id(s_mini, RequirementMapped, "item_id")
    assert reqs["lme-s:q1:q"].turn_ids == ["lme-s:q1:answer_q1_1:0"]
    assert reqs["lme-s:q1:q"].session_ids == ["lme-s:q1:answer_q1_1"]
    # single-session-assistant: the evidence is an assistant turn, kept in turn_ids
    assert reqs["lme-s:q2:q"].turn_ids == ["lme-s:q2:answer_ultrachat_2:1"]
    assert _by_id(s_mini, ItemCreated, "item_id")["lme-s:q2:q"].metadata["evidence_user_turn_ids"] == []


def test_answer_session_missing_from_the_haystack_is_reported_not_dropped(s_mini: AdapterResult) -> None:
    item = _by_id(s_mini, ItemCreated, "item_id")["lme-s:q2:q"]
    assert item.metadata["answer_sessions_missing"] == ["answer_gone_1"]
    assert item.metadata["answer_session_ids"] == ["answer_ultrachat_2", "answer_gone_1"]
    assert _by_id(s_mini, RequirementMapped, "item_id")["lme-s:q2:q"].session_ids == ["lme-s:q2:answer_ultrachat_2"]
    assert any("['answer_gone_1'] are not in the haystack" in w for w in s_mini.warnings)


def test_abstention_question_is_labelled_and_its_empty_evidence_reported(s_mini: AdapterResult) -> None:
    item = _by_id(s_mini, ItemCreated, "item_id")["lme-s:q3_abs:q"]
    assert "abstention" in item.labels and item.metadata["abstention"] is True
    assert item.metadata["answer_sessions_without_has_answer"] == ["answer_q3_abs_1"]
    req = _by_id(s_mini, RequirementMapped, "item_id")["lme-s:q3_abs:q"]
    assert req.turn_ids == [] and req.session_ids == ["lme-s:q3_abs:answer_q3_abs_1"]


def test_folder_loads_s_and_oracle_without_id_clashes() -> None:
    result = load_longmemeval(FIXTURES)
    check_events(result.events)
    assert result.dataset == "longmemeval"
    assert result.counts["s.questions"] == 3 and result.counts["oracle.questions"] == 2
    oracle = _by_id(result, ItemCreated, "item_id")["lme-oracle:q1:q"]
    assert oracle.dataset == "longmemeval-oracle" and oracle.asked_at == "2023/06/07 (Wed) 04:15"


def test_gzipped_file_and_explicit_variant_are_read(tmp_path: Path) -> None:
    gz = tmp_path / "some_dump.json.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as handle:
        handle.write(S_FILE.read_text())
    with pytest.raises(InputError, match="cannot tell S from oracle"):
        load_longmemeval(gz)
    result = load_longmemeval(gz, variant="s")
    assert event_ids(result) == event_ids(load_longmemeval(S_FILE))


def test_loading_twice_gives_identical_event_ids() -> None:
    assert event_ids(load_longmemeval(FIXTURES)) == event_ids(load_longmemeval(FIXTURES))


def test_malformed_record_is_rejected_naming_file_and_field(tmp_path: Path) -> None:
    records = json.loads(S_FILE.read_text())
    records[0]["haystack_sessions"][1][0]["role"] = "system"
    records[1]["haystack_dates"].pop()
    records[2]["question_id"] = "q2"
    path = tmp_path / "longmemeval_s_bad.json"
    path.write_text(json.dumps(records))
    with pytest.raises(InputError) as err:
        load_longmemeval(path)
    message = str(err.value)
    assert str(path) in message
    assert "[0](q1).haystack_sessions[1][0].role" in message
    assert "[1](q2).haystack_sessions: haystack_session_ids (2), haystack_dates (1)" in message
    assert "[2](q2).question_id: duplicate question_id (first at [1])" in message


def test_two_files_of_one_variant_in_a_folder_are_refused(tmp_path: Path) -> None:
    shutil.copy(S_FILE, tmp_path / "longmemeval_s_a.json")
    shutil.copy(S_FILE, tmp_path / "longmemeval_s_b.json")
    with pytest.raises(InputError, match="2 files of variant 's'"):
        load_longmemeval(tmp_path)


def test_real_dev_slice_matches_source_md_counts(shared_dir: Path) -> None:
    folder = shared_dir / "data" / "longmemeval_dev"
    result = load_longmemeval(folder / "longmemeval_s_dev.json.gz")
    types = check_events(result.events)
    c = result.counts
    assert (c["questions"], c["turns"], c["has_answer_turns"], c["abstention"]) == (13, 6428, 24, 1)
    assert (c["sessions_min"], c["sessions_max"]) == (41, 57)
    assert c["answer_sessions_missing"] == 0
    assert c["answer_sessions_without_has_answer"] == 3  # the abstention question's evidence sessions
    assert types["ItemCreated"] == 13 and types["SessionStarted"] == c["sessions"]
    manifest = [json.loads(line) for line in (folder / "manifest.jsonl").read_text().splitlines() if line.strip()]
    manifest = [row for row in manifest if row["split"].startswith("longmemeval_s")]
    assert len(manifest) == 13
    items = _by_id(result, ItemCreated, "item_id")
    for row in manifest:
        item = items[f"lme-s:{row['question_id']}:q"]
        assert item.question_type == row["question_type"]
        assert ("abstention" in item.labels) == row["abstention"]
        assert item.metadata["n_haystack_sessions"] == row["n_sessions"]
    both = load_longmemeval(folder)
    check_events(both.events)
    assert both.counts["oracle.questions"] == 13 and both.counts["oracle.has_answer_turns"] == 24
