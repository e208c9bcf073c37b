"""Event payloads hold only values that come back unchanged from the canonical JSON the log hashes and stores:
NaN, Infinity and the rest are refused when an event (or an input record of any loader) is validated, and
the loaders report them as file:line: field: problem with nothing parsed further. No database needed."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from pydantic import ValidationError

from api.growth.file_format import read_append_file
from graph.errors import EventValidationError
from graph.events import DocumentIngested, DocumentsLinked, ToolCallRecord, TurnAppended, parse_event
from graph.hashing import canonical_bytes
from graph.json_values import ERROR_TYPE
from ingest.errors import InputError
from ingest.pipeline import load_input
from tests.paths import FIXTURES

NON_FINITE = FIXTURES / "bad_bundles" / "non_finite_numbers"


@pytest.mark.parametrize("weight", [float("nan"), float("inf"), float("-inf")])
def test_an_event_built_with_a_non_finite_number_raises_naming_the_field(weight: float) -> None:
    with pytest.raises(ValidationError) as caught:
        DocumentsLinked(src_doc_id="a", dst_doc_id="b", weight=weight)
    [error] = caught.value.errors()
    assert error["type"] == ERROR_TYPE and error["loc"] == ("weight",)
    assert "is not a finite number" in error["msg"]


def test_parsing_a_stored_payload_with_nan_is_an_event_validation_error() -> None:
    with pytest.raises(EventValidationError, match="weight"):
        parse_event("DocumentsLinked", {"src_doc_id": "a", "dst_doc_id": "b", "weight": float("nan")})


def test_nan_inside_a_nested_model_is_refused_at_its_path() -> None:
    # Pydantic's own serialisation of the nested model would have turned this NaN into null without a word.
    call = ToolCallRecord(tool="search", arguments={"query": "x", "k": [1, float("nan")]})
    with pytest.raises(ValidationError) as caught:
        TurnAppended(turn_id="t", session_id="s", ordinal=0, role="user", text="x", tool_calls=[call])
    [error] = caught.value.errors()
    assert error["loc"] == ("tool_calls",) and error["ctx"]["path"] == "0.arguments.k.1"


@pytest.mark.parametrize(
    ("metadata", "reason"),
    [
        ({"score": float("inf")}, "Infinity is not a finite number"),
        ({"big": 10**30}, "does not fit in 64 bits"),
        ({"note": "bad \ud800 text"}, "lone surrogate"),
        ({"thing": object()}, "has no JSON form"),
        ({"deep": {"er": {1: "int key"}}}, "is not a string"),
    ],
)
def test_values_canonical_json_would_change_or_refuse_are_refused(metadata: dict[str, object], reason: str) -> None:
    with pytest.raises(ValidationError, match=reason):
        DocumentIngested(doc_id="d", title="t", text="x", metadata=metadata)


def test_accepted_payloads_round_trip_through_canonical_json_exactly() -> None:
    event = DocumentIngested(
        doc_id="d", title="Tïtle", text="ünïcode\nlines", metadata={"w": 0.1, "n": 2**63, "tags": ("a", "b")}
    )
    payload = event.payload()
    assert orjson.loads(canonical_bytes(payload)) == payload
    assert DocumentsLinked(src_doc_id="a", dst_doc_id="b", weight=-0.5).weight == -0.5


def test_a_bundle_with_nan_and_infinity_is_rejected_with_file_line_and_field() -> None:
    expected = json.loads((NON_FINITE / "expected_problems.json").read_text())["problems"]
    with pytest.raises(InputError) as caught:
        load_input(NON_FINITE)
    problems = caught.value.problems
    assert [(Path(p.file).name, p.line, p.field) for p in problems] == [
        (e["file"], e["line"], e["field"]) for e in expected
    ]
    assert str(problems[0]).startswith(f"{NON_FINITE / 'doc_links.jsonl'}:2: weight: NaN is not a finite number")
    assert str(problems[1]).startswith(f"{NON_FINITE / 'doc_links.jsonl'}:3: weight: Infinity is not a finite")


def test_a_knowledge_base_line_with_nan_names_the_field_as_written(tmp_path: Path) -> None:
    kb = tmp_path / "kb.jsonl"
    kb.write_text(
        '{"doc_id": "a", "title": "A", "text": "alpha", "score": NaN}\n'
        '{"doc_id": "b", "title": "B", "text": "beta", "metadata": {"rank": -Infinity}}\n'
    )
    with pytest.raises(InputError) as caught:
        load_input(kb)
    rendered = [str(p) for p in caught.value.problems]
    assert rendered[0].startswith(f"{kb}:1: score: NaN is not a finite number")
    assert rendered[1].startswith(f"{kb}:2: metadata.rank: -Infinity is not a finite number")


def test_a_profile_append_file_with_infinity_names_the_line_and_field(tmp_path: Path) -> None:
    grow = tmp_path / "grow.jsonl"
    turn = '{"role": "assistant", "text": "x", "tool_calls": [{"tool": "search", "arguments": {"k": Infinity}}]}'
    grow.write_text('{"session_id": "s-1", "turns": [' + turn + "]}\n")
    with pytest.raises(InputError) as caught:
        read_append_file(grow)
    [problem] = caught.value.problems
    assert str(problem).startswith(f"{grow}:1: turns.0.tool_calls.0.arguments.k: Infinity is not a finite number")
