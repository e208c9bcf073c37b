"""Events declare their JSON fields (issue 23, item 3): every event type's catalogue entry comes from its model,
and what a real log and its export carry in `payload` follows it (no undeclared field, every required one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graph.events import EVENT_TYPES, event_fields
from graph.store import EventStore
from graph.transfer import export_log

pytestmark = [pytest.mark.neo4j]


def test_every_event_type_declares_its_fields_and_which_are_always_there() -> None:
    catalogue = event_fields()
    assert set(catalogue) == set(EVENT_TYPES)
    for name, fields in catalogue.items():
        assert fields, name
        assert set(fields) == set(EVENT_TYPES[name].model_fields), name
        for field, spec in fields.items():
            assert isinstance(spec["required"], bool), (name, field)
    turn = catalogue["TurnAppended"]
    assert turn["role"]["required"] and turn["role"]["enum"] == ["user", "assistant"]
    if "exchange" in catalogue["AnswerJudged"]:
        assert catalogue["AnswerJudged"]["exchange"] == {**catalogue["AnswerJudged"]["exchange"], "required": False}
        assert "omitted_when" in catalogue["AnswerJudged"]["exchange"]


def _check(payloads: list[tuple[str, dict[str, Any]]]) -> int:
    catalogue = event_fields()
    for kind, payload in payloads:
        declared = catalogue[kind]
        undeclared = set(payload) - set(declared)
        assert not undeclared, (kind, undeclared)
        missing = {f for f, spec in declared.items() if spec["required"]} - set(payload)
        assert not missing, (kind, missing)
    return len(payloads)


def test_a_real_log_and_its_export_carry_exactly_the_declared_fields(mini_store: EventStore, tmp_path: Path) -> None:
    stored = [(e.type, e.payload) for e in mini_store.read()]
    assert _check(stored) > 50
    assert len({kind for kind, _ in stored}) >= 5
    path = tmp_path / "log.jsonl"
    export_log(mini_store, path)
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    exported = [(r["type"], r["payload"]) for r in map(json.loads, lines)]
    assert _check(exported) == len(stored)


def test_events_fields_prints_one_type_and_refuses_an_unknown_one() -> None:
    from cli import app

    shown = CliRunner().invoke(app, ["events", "fields", "TurnAppended"])
    assert shown.exit_code == 0, shown.output
    assert set(json.loads(shown.output)) == {"TurnAppended"}
    unknown = CliRunner().invoke(app, ["events", "fields", "NoSuchEvent"])
    assert unknown.exit_code == 2 and "unknown event type 'NoSuchEvent'" in unknown.output
