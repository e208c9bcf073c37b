"""How the MemKB system prompt shows a state of S(H): id, text, whom, when, what is open, and its turns."""

from __future__ import annotations

from agents.answerer import render_state
from query.results import StateHit


def test_a_state_line_names_its_actor_time_open_conditions_and_source_turns() -> None:
    state = StateHit(
        state_id="st-1",
        text="Mother recovering from a hip fracture",
        concerns="the user's mother",
        time_context="since March",
        unresolved=["discharge date", "stairs at home"],
        source_turn_ids=["t3", "t7"],
    )
    assert render_state(state) == (
        "- [st-1] Mother recovering from a hip fracture (concerns: the user's mother; time: since March; "
        "unresolved: discharge date; stairs at home; from turns t3, t7)"
    )


def test_a_state_without_details_is_just_its_id_and_text() -> None:
    state = StateHit(
        state_id="st-2", text="Lives alone", concerns="", time_context="", unresolved=[], source_turn_ids=[]
    )
    assert render_state(state) == "- [st-2] Lives alone"
