"""Incremental profile growth: appendSession / appendTurns (and `colabench profile append`) write events,
continue ordinals, update memory for the new turns only, are idempotent, and a follow-up search sees them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver
from typer.testing import CliRunner

from tests.api_support import TOKEN, api_client, cypher, data_of, error_codes, gql

pytestmark = pytest.mark.neo4j

APPEND_SESSION = """
mutation($profile: ID!, $turns: [TurnInput!]!, $startedAt: String, $sessionId: String) {
  appendSession(profile: $profile, turns: $turns, startedAt: $startedAt, sessionId: $sessionId) {
    profileId sessionId sessionCreated turnIds appendedTurnIds eventsAppended eventsSkipped headSeq
    memorySystem memoryUpdated memoryCounts memoryNote warnings
    session { id ordinal startedAt }
    turns { id ordinal role text exposures { docId via startLine endLine rank query } }
  }
}"""
APPEND_TURNS = """
mutation($session: ID!, $turns: [TurnInput!]!) {
  appendTurns(session: $session, turns: $turns) {
    sessionId turnIds appendedTurnIds eventsAppended eventsSkipped headSeq memoryUpdated memoryCounts memoryNote
    turns { id ordinal previous { id } }
  }
}"""
FIRST_TURNS = [
    {"role": "user", "text": "My asthma review is booked for next week at Riverside.", "at": "2025-04-02T09:00:00Z"},
    {
        "role": "assistant",
        "text": "Good. Bring your inhalers so the nurse can check your technique.",
        "at": "2025-04-02T09:01:00Z",
        "toolCalls": [
            {
                "tool": "search",
                "arguments": {"query": "asthma review inhaler"},
                "returned": [{"docId": "mini-asthma-inhalers", "startLine": 1, "endLine": 3}],
            }
        ],
    },
]
NEW_STATEMENT = {
    "role": "user",
    "text": "The pharmacist switched me to a purple preventer inhaler called Fluticorin yesterday.",
    "at": "2025-04-03T08:00:00Z",
}


def head_seq(driver: Driver) -> int:
    return int(cypher(driver, "MATCH (h:LogHead) RETURN h.seq AS s")[0]["s"])


@pytest.fixture(scope="module")
def client(mini_store: Any, neo4j_settings: Any, driver: Driver, encoder: Any) -> Iterator[TestClient]:
    with api_client(neo4j_settings, driver, encoder, token=TOKEN) as c:
        yield c


@pytest.fixture(scope="module")
def appended(client: TestClient, driver: Driver) -> dict[str, Any]:
    """One appendSession on mini-p-sam (who has sessions already), shared by the tests below."""
    before = cypher(driver, "MATCH (:Profile {id: 'mini-p-sam'})-[:HAS_SESSION]->(s) RETURN count(s) AS n")[0]["n"]
    variables = {"profile": "mini-p-sam", "turns": FIRST_TURNS, "startedAt": "2025-04-02T09:00:00Z"}
    result = data_of(gql(client, APPEND_SESSION, variables, token=TOKEN))["appendSession"]
    result["sessions_before"] = before
    return dict(result)


def test_append_session_writes_the_session_turns_and_exposures_as_events(
    appended: dict[str, Any], driver: Driver
) -> None:
    assert appended["sessionCreated"] and appended["profileId"] == "mini-p-sam"
    assert appended["session"]["ordinal"] == appended["sessions_before"]
    assert appended["session"]["startedAt"] == "2025-04-02T09:00:00Z"
    assert [t["ordinal"] for t in appended["turns"]] == [0, 1]
    assert appended["appendedTurnIds"] == appended["turnIds"] and len(appended["turnIds"]) == 2
    # SessionStarted + 2 TurnAppended + 1 DocumentExposed
    assert appended["eventsAppended"] == 4
    assert appended["turns"][1]["exposures"] == [
        {
            "docId": "mini-asthma-inhalers",
            "via": "search",
            "startLine": 1,
            "endLine": 3,
            "rank": 1,
            "query": "asthma review inhaler",
        }
    ]
    session_id = appended["sessionId"]
    rows = cypher(
        driver,
        "MATCH (e:Event) WHERE e.seq > $after RETURN e.type AS type, e.actor AS actor ORDER BY e.seq",
        after=appended["headSeq"] - appended["eventsAppended"],
    )
    assert [r["type"] for r in rows[:4]] == ["SessionStarted", "TurnAppended", "TurnAppended", "DocumentExposed"]
    assert {r["actor"] for r in rows[:4]} == {"api"}
    chain = cypher(
        driver, "MATCH (s:Session {id: $id})-[:HAS_TURN]->(t) RETURN t.id AS id ORDER BY t.ordinal", id=session_id
    )
    assert [r["id"] for r in chain] == appended["turnIds"]


def test_memory_cards_and_links_are_updated_for_the_profile(appended: dict[str, Any], driver: Driver) -> None:
    assert appended["memoryUpdated"] and appended["memorySystem"] == "raw_turns"
    user_turn = appended["turnIds"][0]
    cards = cypher(
        driver,
        "MATCH (m:Memory {system: 'raw_turns'})-[:DERIVED_FROM]->(t:Turn {id: $id}) "
        "OPTIONAL MATCH (m)-[l:LINKS_TO]->() RETURN m.id AS id, m.text AS text, count(l) AS links",
        id=user_turn,
    )
    assert len(cards) == 1 and cards[0]["text"] == FIRST_TURNS[0]["text"] and cards[0]["links"] > 0
    assistant_cards = cypher(
        driver, "MATCH (m:Memory)-[:DERIVED_FROM]->(t:Turn {id: $id}) RETURN count(m) AS n", id=appended["turnIds"][1]
    )
    assert assistant_cards[0]["n"] == 0


def test_append_turns_continues_ordinals_updates_memory_incrementally_and_search_sees_it(
    client: TestClient, appended: dict[str, Any], driver: Driver
) -> None:
    cards_before = cypher(driver, "MATCH (m:Memory {profile_id: 'mini-p-sam'}) RETURN count(m) AS n")[0]["n"]
    events_before = head_seq(driver)
    reply = {"role": "assistant", "text": "Noted: a new preventer.", "at": "2025-04-03T08:01:00Z"}
    result = data_of(
        gql(client, APPEND_TURNS, {"session": appended["sessionId"], "turns": [NEW_STATEMENT, reply]}, token=TOKEN)
    )["appendTurns"]
    assert [t["ordinal"] for t in result["turns"]] == [2, 3]
    assert result["turns"][0]["previous"] == {"id": appended["turnIds"][1]}
    # One new user turn -> exactly one new card (no rebuild), linked.
    assert result["memoryCounts"]["cards_added"] == 1
    cards_after = cypher(driver, "MATCH (m:Memory {profile_id: 'mini-p-sam'}) RETURN count(m) AS n")[0]["n"]
    assert cards_after == cards_before + 1
    new_writes = cypher(
        driver, "MATCH (e:Event {type: 'MemoryWritten'}) WHERE e.seq > $s RETURN count(e) AS n", s=events_before
    )
    assert new_writes[0]["n"] == 1
    search = """query($q: String!) { search(profile: "mini-p-sam", query: $q, recipe: "RAW_TURNS", k: 3) {
        memories { memoryId sourceTurnIds text sourceTurns { id text } } } }"""
    hits = data_of(gql(client, search, {"q": "Which preventer inhaler did the pharmacist give me?"}))["search"]
    top = hits["memories"][0]
    assert top["sourceTurnIds"] == [result["turnIds"][0]] and top["text"] == NEW_STATEMENT["text"]
    assert top["sourceTurns"] == [{"id": result["turnIds"][0], "text": NEW_STATEMENT["text"]}]


def test_cached_query_answers_are_reused_until_an_append_moves_the_log_head(
    client: TestClient, appended: dict[str, Any]
) -> None:
    query = {
        "query": "query($id: ID!) { session(id: $id) { turns { id } } }",
        "variables": {"id": appended["sessionId"]},
    }
    first, second = client.post("/graphql", json=query), client.post("/graphql", json=query)
    assert (first.headers["x-cache"], second.headers["x-cache"]) == ("miss", "hit")
    assert first.content == second.content
    more = [{"role": "user", "text": "Cache check: one more turn.", "at": "2025-04-04T08:00:00Z"}]
    added = data_of(gql(client, APPEND_TURNS, {"session": appended["sessionId"], "turns": more}, token=TOKEN))
    after = client.post("/graphql", json=query)
    assert after.headers["x-cache"] == "miss"
    ids = [t["id"] for t in after.json()["data"]["session"]["turns"]]
    assert (
        ids[-1] == added["appendTurns"]["turnIds"][0] and len(ids) == len(second.json()["data"]["session"]["turns"]) + 1
    )


def test_appending_the_same_session_and_turns_again_changes_nothing(
    client: TestClient, appended: dict[str, Any], driver: Driver
) -> None:
    head, counts = head_seq(driver), cypher(driver, "MATCH (n) RETURN count(n) AS n")[0]["n"]
    variables = {"profile": "mini-p-sam", "turns": FIRST_TURNS, "startedAt": "2025-04-02T09:00:00Z"}
    again = data_of(gql(client, APPEND_SESSION, variables, token=TOKEN))["appendSession"]
    assert again["sessionId"] == appended["sessionId"] and not again["sessionCreated"]
    assert again["eventsAppended"] == 0 and again["appendedTurnIds"] == []
    assert again["turnIds"] == appended["turnIds"]
    turns_again = data_of(
        gql(client, APPEND_TURNS, {"session": appended["sessionId"], "turns": FIRST_TURNS}, token=TOKEN)
    )["appendTurns"]
    assert turns_again["eventsAppended"] == 0 and turns_again["turnIds"] == appended["turnIds"]
    assert head_seq(driver) == head
    assert cypher(driver, "MATCH (n) RETURN count(n) AS n")[0]["n"] == counts


def test_a_repeated_message_within_one_request_is_two_turns(client: TestClient, appended: dict[str, Any]) -> None:
    twice = [{"role": "user", "text": "ok"}, {"role": "user", "text": "ok"}]
    result = data_of(gql(client, APPEND_TURNS, {"session": appended["sessionId"], "turns": twice}, token=TOKEN))
    ids = result["appendTurns"]["appendedTurnIds"]
    assert len(ids) == 2 and ids[0] != ids[1]


def test_conflicting_or_invalid_appends_are_refused_and_write_nothing(
    client: TestClient, appended: dict[str, Any], driver: Driver
) -> None:
    head = head_seq(driver)
    session = appended["sessionId"]
    clash = [{"turnId": appended["turnIds"][0], "role": "user", "text": "different text"}]
    assert error_codes(gql(client, APPEND_TURNS, {"session": session, "turns": clash}, token=TOKEN)) == ["CONFLICT"]
    robot = [{"role": "robot", "text": "beep"}]
    body = gql(client, APPEND_TURNS, {"session": session, "turns": robot}, token=TOKEN)
    assert error_codes(body) == ["BAD_INPUT"] and "turns.0.role" in body["errors"][0]["message"]
    past_end = [
        {
            "role": "assistant",
            "text": "see the leaflet",
            "toolCalls": [
                {"tool": "read", "returned": [{"docId": "mini-asthma-inhalers", "startLine": 1, "endLine": 999}]}
            ],
        }
    ]
    body = gql(client, APPEND_TURNS, {"session": session, "turns": past_end}, token=TOKEN)
    assert error_codes(body) == ["BAD_INPUT"] and "mini-asthma-inhalers" in body["errors"][0]["message"]
    user_tools = [{"role": "user", "text": "x", "toolCalls": [{"tool": "search"}]}]
    assert error_codes(gql(client, APPEND_TURNS, {"session": session, "turns": user_tools}, token=TOKEN)) == [
        "BAD_INPUT"
    ]
    bad_time = [{"role": "user", "text": "x", "at": "yesterday"}]
    assert error_codes(gql(client, APPEND_TURNS, {"session": session, "turns": bad_time}, token=TOKEN)) == ["BAD_INPUT"]
    unknown = {"profile": "nobody", "turns": [{"role": "user", "text": "hi"}]}
    assert error_codes(gql(client, APPEND_SESSION, unknown, token=TOKEN)) == ["NOT_FOUND"]
    other = {"profile": "mini-p-ana", "turns": [{"role": "user", "text": "hi"}], "sessionId": session}
    if cypher(driver, "MATCH (p:Profile {id: 'mini-p-ana'}) RETURN count(p) AS n")[0]["n"]:
        assert error_codes(gql(client, APPEND_SESSION, other, token=TOKEN)) == ["CONFLICT"]
    assert head_seq(driver) == head


def test_an_append_carrying_nan_or_infinity_is_refused_as_bad_input_and_writes_nothing(
    client: TestClient, appended: dict[str, Any], driver: Driver
) -> None:
    head = head_seq(driver)
    for number in ("NaN", "Infinity"):
        # Written by hand: a JSON encoder would refuse (or silently rewrite) these numbers.
        body = (
            '{"query": '
            + json.dumps(APPEND_TURNS)
            + ', "variables": {"session": '
            + json.dumps(appended["sessionId"])
            + ', "turns": [{"role": "assistant", "text": "x", "toolCalls": [{"tool": "search", "arguments": '
            '{"query": "q", "k": ' + number + "}}]}]}}"
        )
        response = client.post(
            "/graphql",
            content=body,
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        errors = response.json()["errors"]
        assert error_codes(response.json()) == ["BAD_INPUT"], errors
        assert "turns.0.tool_calls.0.arguments" in errors[0]["message"]
        assert f"{number} is not a finite number" in errors[0]["message"]
    assert head_seq(driver) == head


def test_exposing_a_support_document_is_appended_with_a_warning(client: TestClient) -> None:
    turns = [
        {
            "role": "assistant",
            "text": "Here are the donation rules.",
            "toolCalls": [
                {"tool": "read", "returned": [{"docId": "mini-blood-donation", "startLine": 1, "endLine": 2}]}
            ],
        }
    ]
    result = data_of(gql(client, APPEND_SESSION, {"profile": "mini-p-sam", "turns": turns}, token=TOKEN))
    warnings = result["appendSession"]["warnings"]
    assert len(warnings) == 1 and "i-mini-01" in warnings[0] and "mini-blood-donation" in warnings[0]


def test_profile_append_cli_validates_with_locations_appends_and_resumes(
    appended: dict[str, Any], tmp_path: Path, driver: Driver
) -> None:
    from cli import app

    runner = CliRunner()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"session_id": appended["sessionId"], "turns": [{"role": "user", "text": "fine"}]})
        + "\n"
        + json.dumps({"session_id": appended["sessionId"], "turns": [{"role": "robot", "text": ""}]})
        + "\n"
    )
    head = head_seq(driver)
    result = runner.invoke(app, ["profile", "append", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}:2: turns.0.role" in result.output and f"{bad}:2: turns.0.text" in result.output
    assert head_seq(driver) == head
    good = tmp_path / "grow.json"
    records = [
        {
            "profile_id": "mini-p-sam",
            "session_id": "cli-session-1",
            "started_at": "2025-05-01T10:00:00Z",
            "turns": [{"role": "user", "text": "I had a mild reaction to the flu jab last autumn."}],
        },
        {"session_id": "cli-session-1", "turns": [{"turn_id": "cli-t-2", "role": "user", "text": "It was a rash."}]},
    ]
    good.write_text(json.dumps(records))
    first = runner.invoke(app, ["profile", "append", str(good)])
    assert first.exit_code == 0, first.output
    turns = cypher(
        driver, "MATCH (:Session {id: 'cli-session-1'})-[:HAS_TURN]->(t) RETURN t.id AS id ORDER BY t.ordinal"
    )
    assert len(turns) == 2 and turns[1]["id"] == "cli-t-2"
    head = head_seq(driver)
    second = runner.invoke(app, ["profile", "append", str(good)])
    assert second.exit_code == 0, second.output
    assert head_seq(driver) == head
