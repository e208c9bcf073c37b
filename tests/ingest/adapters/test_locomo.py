"""LoCoMo -> events (no Neo4j): sessions, roles, images, observations, evidence repair, errors, real counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graph.events import FactDisclosed, FactRecorded, ItemCreated, RequirementMapped, SessionStarted, TurnAppended
from ingest.adapters import AdapterResult
from ingest.adapters.locomo import load_locomo, parse_date, resolve_evidence
from ingest.errors import InputError
from tests.ingest.adapters.test_projection_check import assert_ids_prefixed, check_events, event_ids
from tests.paths import FIXTURES

FIXTURE = FIXTURES / "locomo" / "locomo_mini.json"
P = "locomo:conv-1"


def _of(result: AdapterResult, kind: type) -> list[Any]:
    return [new.event for new in result.events if isinstance(new.event, kind)]


def _by_id(result: AdapterResult, kind: type, key: str) -> dict[str, Any]:
    return {getattr(e, key): e for e in _of(result, kind)}


@pytest.fixture(scope="module")
def mini() -> AdapterResult:
    return load_locomo(FIXTURE)


def test_fixture_gives_consistent_events_and_counts(mini: AdapterResult) -> None:
    types = check_events(mini.events)
    assert_ids_prefixed(mini, ("locomo:",))
    assert mini.dataset == "locomo"
    c = mini.counts
    assert (c["conversations"], c["sessions"], c["turns"], c["qa"], c["observations"]) == (2, 3, 7, 8, 6)
    assert types["ItemCreated"] == types["RequirementMapped"] == 8


def test_only_session_keys_with_turns_make_sessions_dated_by_their_date_time(mini: AdapterResult) -> None:
    sessions = _by_id(mini, SessionStarted, "session_id")
    assert [s for s in sessions if s.startswith(P)] == [f"{P}:D1", f"{P}:D2"]  # session_3 has only a date
    first = sessions[f"{P}:D1"]
    assert first.started_at == "1:56 pm on 8 May, 2023" and first.source_id == "session_1"
    assert first.metadata["started_at_iso"] == "2023-05-08T13:56:00"
    assert first.metadata["session_summary"].startswith("Caroline and Melanie")
    assert first.metadata["events"]["Caroline"] == ["Caroline attends a support group."]


def test_speaker_a_is_user_speaker_b_is_assistant_and_names_are_kept(mini: AdapterResult) -> None:
    turns = _by_id(mini, TurnAppended, "turn_id")
    assert (turns[f"{P}:D1:1"].role, turns[f"{P}:D1:1"].speaker) == ("user", "Caroline")
    assert (turns[f"{P}:D1:2"].role, turns[f"{P}:D1:2"].speaker) == ("assistant", "Melanie")
    assert [t.ordinal for t in turns.values() if t.session_id == f"{P}:D1"] == [0, 1, 2]


def test_image_caption_is_appended_bare_by_default_and_image_fields_kept(mini: AdapterResult) -> None:
    turn = _by_id(mini, TurnAppended, "turn_id")[f"{P}:D1:2"]
    assert turn.text.endswith("look. a photo of a painting of a sunset over a lake")
    assert mini.settings == {"locomo_caption": "bare"}
    assert turn.metadata["img_url"] == ["https://example.org/sunrise.jpg"]
    assert turn.metadata["image_query"] == "painting sunrise" and turn.metadata["dia_id"] == "D1:2"
    assert _by_id(mini, TurnAppended, "turn_id")[f"{P}:D2:2"].metadata["re_download"] is True


def test_bracketed_option_appends_the_caption_in_brackets() -> None:
    bracketed = load_locomo(FIXTURE, "bracketed")
    turn = _by_id(bracketed, TurnAppended, "turn_id")[f"{P}:D1:2"]
    assert turn.text.endswith("look. [image: a photo of a painting of a sunset over a lake]")
    assert bracketed.settings == {"locomo_caption": "bracketed"}


def test_observations_are_private_facts_disclosed_by_every_evidence_turn(mini: AdapterResult) -> None:
    facts = _by_id(mini, FactRecorded, "fact_id")
    fact = facts[f"{P}:obs:D1:2"]
    assert fact.text == "Melanie painted a lake sunrise last year." and fact.private
    assert fact.metadata["speaker"] == "Melanie" and fact.metadata["evidence_dia_ids"] == ["D1:2", "D1:3"]
    disclosed = {(e.fact_id, e.turn_id) for e in _of(mini, FactDisclosed)}
    assert {(fact.fact_id, f"{P}:D1:2"), (fact.fact_id, f"{P}:D1:3")} <= disclosed
    orphan = facts[f"{P}:obs:D2:1"]
    assert orphan.metadata["unresolved_evidence"] == ["D2:9"]
    assert not any(f == orphan.fact_id for f, _ in disclosed)
    assert mini.counts["observations_without_evidence_turn"] == 1


def test_malformed_evidence_is_split_normalised_or_reported_never_dropped(mini: AdapterResult) -> None:
    reqs = _by_id(mini, RequirementMapped, "item_id")
    items = _by_id(mini, ItemCreated, "item_id")
    assert reqs[f"{P}:qa:1"].turn_ids == [f"{P}:D1:2", f"{P}:D2:1"]  # "D1:2; D2:1"
    assert reqs[f"{P}:qa:1"].session_ids == [f"{P}:D1", f"{P}:D2"]
    assert reqs[f"{P}:qa:2"].turn_ids == [f"{P}:D1:3", f"{P}:D2:1"]  # "D:1:3", "D2:01"
    assert items[f"{P}:qa:3"].metadata["unresolved_evidence"] == ["D"]
    assert reqs[f"{P}:qa:3"].turn_ids == [f"{P}:D2:1"]
    assert items[f"{P}:qa:6"].metadata["unresolved_evidence"] == ["D9:9"]  # "D9:9 D1:3": split, one missing
    assert reqs[f"{P}:qa:6"].turn_ids == [f"{P}:D1:3"] and "unresolved_evidence" in items[f"{P}:qa:6"].labels
    assert reqs[f"{P}:qa:5"].turn_ids == []  # no evidence in the record
    c = mini.counts
    assert (
        c["evidence_strings_malformed"],
        c["evidence_strings_split"],
        c["evidence_ids_normalised"],
        c["evidence_ids_unresolved"],
    ) == (5, 2, 2, 2)
    assert sum("matches no turn" in w for w in mini.warnings) == 3  # D, D9:9 and the observation's D2:9


def test_resolve_evidence_handles_every_source_md_quirk() -> None:
    known = {"D8:6", "D9:17", "D11:26", "D30:5", "D4:4"}
    found = resolve_evidence(["D8:6; D9:17", "D:11:26", "D30:05", "D", "D10:19", "D4:4 D8:6"], known)
    assert found.dia_ids == ["D8:6", "D9:17", "D11:26", "D30:5", "D4:4"]
    assert found.normalised == [("D:11:26", "D11:26"), ("D30:05", "D30:5")]
    assert found.unresolved == ["D", "D10:19"] and len(found.split) == 2


def test_categories_become_question_types_and_adversarial_items_are_declined(mini: AdapterResult) -> None:
    items = _by_id(mini, ItemCreated, "item_id")
    assert items[f"{P}:qa:0"].question_type == "2" and items[f"{P}:qa:0"].metadata["category_name"] == "temporal"
    assert items[f"{P}:qa:1"].reference_answer == "2022"  # int answers are stringified
    adversarial = items[f"{P}:qa:3"]
    assert adversarial.question_type == "5" and "adversarial" in adversarial.labels
    assert adversarial.reference_answer == "Not mentioned in the conversation."
    assert adversarial.metadata["adversarial_answer"] == "self-care is important"
    assert items[f"{P}:qa:4"].reference_answer == "No"  # category 5 with an explicit answer keeps it


def test_loading_twice_gives_identical_event_ids() -> None:
    assert event_ids(load_locomo(FIXTURE)) == event_ids(load_locomo(FIXTURE))


def test_parse_date_reads_locomo_dates_and_refuses_others() -> None:
    assert parse_date("10:37 am on 27 June, 2023") == "2023-06-27T10:37:00"
    assert parse_date("sometime in June") is None


def test_malformed_sample_is_rejected_naming_file_and_field(tmp_path: Path) -> None:
    samples = json.loads(FIXTURE.read_text())
    samples[0]["qa"][2]["category"] = 7
    del samples[1]["conversation"]["session_1"][0]["text"]
    samples[1]["conversation"]["session_1"][1]["speaker"] = "Nobody"
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(samples))
    with pytest.raises(InputError) as err:
        load_locomo(path)
    message = str(err.value)
    assert str(path) in message
    assert "[0](conv-1).qa[2].category: expected 1..5" in message
    assert "[1](conv-2).conversation.session_1[0].text" in message
    assert "[1](conv-2).conversation.session_1[1].speaker: 'Nobody' is neither" in message


def test_missing_file_and_non_array_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_locomo(tmp_path / "absent.json")
    (tmp_path / "obj.json").write_text("{}")
    with pytest.raises(InputError, match="expected a JSON array"):
        load_locomo(tmp_path / "obj.json")


def test_real_locomo_matches_source_md_counts(shared_dir: Path) -> None:
    result = load_locomo(shared_dir / "data" / "locomo" / "locomo10.json")
    types = check_events(result.events)
    c = result.counts
    assert (c["conversations"], c["sessions"], c["turns"], c["qa"]) == (10, 272, 5882, 1986)
    assert (c["image_turns"], c["captioned_turns"]) == (910, 1226)
    assert [c[f"category_{n}"] for n in range(1, 6)] == [282, 321, 96, 841, 446]
    # 9 malformed strings: 4 multi-id, D:11:26, D30:05, D, conv-42 D10:19, conv-47 D4:36
    assert (
        c["evidence_strings_malformed"],
        c["evidence_strings_split"],
        c["evidence_ids_normalised"],
        c["evidence_ids_unresolved"],
    ) == (9, 4, 2, 3)
    assert c["qa_without_evidence_turn"] == 4 and c["observations_without_evidence_turn"] == 0
    assert types["TurnAppended"] == 5882 and types["ItemCreated"] == 1986
    items = _by_id(result, ItemCreated, "item_id")
    assert items["locomo:conv-42:qa:58"].metadata["unresolved_evidence"] == ["D10:19"]
    assert items["locomo:conv-47:qa:38"].metadata["unresolved_evidence"] == ["D4:36"]
