"""Key expansion, time-aware query expansion and round units (no database): the pieces `eval qa --feed rag`
and `eval retrieval --key-expansion/--time-aware` are built from."""

from __future__ import annotations

from datetime import date, datetime

from agents.qa.history import HistorySession, HistoryTurn
from agents.qa.units import build_units
from query.expansion.keys import expand_key, expand_keys
from query.expansion.time_range import infer_time_range, parse_session_date, prune_by_time
from query.expansion.unit_ranking import UnitIndex

ASKED = datetime(2023, 5, 30, 14, 53)


def test_time_range_is_read_from_relative_and_calendar_expressions() -> None:
    two_weeks = infer_time_range("What did I cook two weeks ago?", ASKED)
    assert two_weeks is not None and two_weeks.contains(date(2023, 5, 16))
    assert not two_weeks.contains(date(2023, 5, 1)) and not two_weeks.contains(date(2023, 5, 29))
    past = infer_time_range("How many books did I read in the past 3 months?", ASKED)
    assert past is not None and past.contains(date(2023, 3, 1)) and not past.contains(date(2023, 1, 10))
    march = infer_time_range("Where did I travel in March?", ASKED)
    assert march is not None and march.contains(date(2023, 3, 31)) and not march.contains(date(2023, 5, 1))
    may_first = infer_time_range("What did I do at the parade on May 1st?", ASKED)
    assert may_first is not None and may_first.start == date(2023, 4, 30)
    assert infer_time_range("What breed is my dog?", ASKED) is None
    assert infer_time_range("two weeks ago?", None) is None  # no question date: nothing to count from


def test_time_pruning_keeps_undated_candidates_and_never_empties_the_list() -> None:
    window = infer_time_range("What did I buy last week?", ASKED)
    dates = {"in": date(2023, 5, 25), "out": date(2023, 1, 2), "undated": None}
    kept, note = prune_by_time(["in", "out", "undated"], dates, window)
    assert kept == ["in", "undated"] and note and "2 of 3" in note
    everything, fallback = prune_by_time(["out"], dates, window)
    assert everything == ["out"] and fallback and "kept no candidate" in fallback
    assert parse_session_date("2023/05/20 (Sat) 10:00") == date(2023, 5, 20)
    assert parse_session_date("2023-05-20T10:00:00") == date(2023, 5, 20)


def test_fact_expanded_keys_let_a_question_meet_a_unit_through_its_fact() -> None:
    texts = {"u1": "user: I just brought Max home from the shelter.", "u2": "user: I repainted the kitchen."}
    keys, facts = expand_keys(
        ["u1", "u2"], texts, lambda text, _day: ["The user adopted a pet dog."] if "Max" in text else []
    )
    assert facts == {"u1": ["The user adopted a pet dog."], "u2": []}
    assert keys["u1"] == texts["u1"] + "\nfact: The user adopted a pet dog." and keys["u2"] == texts["u2"]
    question = "Which pet did I adopt?"
    plain = UnitIndex(["u1", "u2"], [texts["u1"], texts["u2"]], channels=["keyword"], encoder=None)
    expanded = UnitIndex(["u1", "u2"], [keys["u1"], keys["u2"]], channels=["keyword"], encoder=None)
    assert plain.rank(question, 60.0) == []
    assert [u for u, _ in expanded.rank(question, 60.0)] == ["u1"]
    assert expand_key("x", ["", "  ", "a", "a"]) == "x\nfact: a"


def test_rounds_pair_each_user_turn_with_the_replies_it_got() -> None:
    turns = [
        HistoryTurn(turn_id="s:0", role="assistant", text="Welcome back."),
        HistoryTurn(turn_id="s:1", role="user", text="Recommend a trail?"),
        HistoryTurn(turn_id="s:2", role="assistant", text="Eagle Ridge Trail."),
        HistoryTurn(turn_id="s:3", role="user", text="Thanks."),
    ]
    session = HistorySession(session_id="s", profile_id="p", ordinal=0, turns=turns)
    rounds = build_units([session], "round")
    assert [u.turn_ids for u in rounds] == [["s:0"], ["s:1", "s:2"], ["s:3"]]
    assert "assistant: Eagle Ridge Trail." in rounds[1].text
    (whole,) = build_units([session], "session")
    assert whole.unit_id == "s" and len(whole.turns) == 4
