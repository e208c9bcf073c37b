"""iKAT's canonical response of turn n is item n's reference answer and public history of the turns after it: the
adapter marks that assistant turn (`metadata.reference_answer_of`), and the API serves its text only with the
token — as a GraphQL Turn, in a session's turns, the node view, the TurnAppended payload and node search —
while the assistant turns that answer no item stay public."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from graph.events import REFERENCE_ANSWER_OF, ItemCreated, TurnAppended
from graph.store import EventStore
from ingest.adapters.ikat import load_ikat
from ingest.pipeline import write_events
from tests.api_support import TOKEN, api_client, data_of, gql
from tests.conftest import emptied_store
from tests.paths import FIXTURES

IKAT = FIXTURES / "ikat" / "2023_test_topics.json"
P = "ikat:2023-test:9-1"
ANSWER_TURN = f"{P}:conv:1:assistant"  # turn 1 has gold provenance: item 1's reference answer
PLAIN_TURN = f"{P}:conv:2:assistant"  # turn 2 has none: a clarifying question, no item


def test_every_reference_answer_turn_names_its_item_and_no_other_turn_does() -> None:
    result = load_ikat(IKAT)
    items = {e.item_id: e for e in (n.event for n in result.events) if isinstance(e, ItemCreated)}
    turns = [e for e in (n.event for n in result.events) if isinstance(e, TurnAppended)]
    marked = {t.turn_id: t for t in turns if t.metadata.get(REFERENCE_ANSWER_OF)}
    assert marked and set(t.metadata[REFERENCE_ANSWER_OF] for t in marked.values()) == set(items)
    for turn in marked.values():
        assert turn.role == "assistant" and turn.text == items[turn.metadata[REFERENCE_ANSWER_OF]].reference_answer
    assert ANSWER_TURN in marked and PLAIN_TURN not in marked


@pytest.fixture(scope="module")
def ikat_store(driver: Driver, encoder: Any) -> EventStore:
    store: EventStore = emptied_store(driver, encoder)
    write_events(store, load_ikat(IKAT))
    return store


@pytest.fixture(scope="module")
def client(ikat_store: EventStore, neo4j_settings: Any, driver: Driver, encoder: Any) -> Iterator[TestClient]:
    with api_client(neo4j_settings, driver, encoder, token=TOKEN, response_cache_entries=0) as c:
        yield c


@pytest.mark.neo4j
def test_the_answer_turn_is_served_without_its_text_unless_the_request_has_the_token(
    client: TestClient, ikat_store: EventStore
) -> None:
    answer = next(
        e.reference_answer for e in (n.event for n in load_ikat(IKAT).events)
        if isinstance(e, ItemCreated) and e.item_id == f"{P}:item:1"
    )
    words = " ".join(answer.split()[:6])
    query = """query($a: ID!, $b: ID!, $s: ID!, $w: String!) {
      a: turn(id: $a) { id role text redactedFields }
      b: turn(id: $b) { id text redactedFields }
      session(id: $s) { turns { id text } }
      node(id: $a) { caption properties redactedFields }
      events(type: "TurnAppended", first: 200) { events { payload } }
      findNodes(text: $w, limit: 50) { id caption }
    }"""
    variables = {"a": ANSWER_TURN, "b": PLAIN_TURN, "s": f"{P}:conv", "w": words}
    anonymous = gql(client, query, variables)
    assert answer not in str(anonymous) and words not in str(anonymous)
    data = data_of(anonymous)
    assert data["a"] == {"id": ANSWER_TURN, "role": "assistant", "text": None, "redactedFields": ["text"]}
    assert data["b"]["text"] and data["b"]["redactedFields"] == []  # no item's answer: public
    assert data["node"]["properties"]["text"] is None and "text" in data["node"]["redactedFields"]
    assert ANSWER_TURN not in [h["id"] for h in data["findNodes"]]
    shown = data_of(gql(client, query, variables, token=TOKEN))
    assert shown["a"]["text"] == answer and shown["a"]["redactedFields"] == []
    assert answer in [t["text"] for t in shown["session"]["turns"]]
    assert ANSWER_TURN in [h["id"] for h in shown["findNodes"]]
