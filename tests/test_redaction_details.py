"""A judge's details belong to its judgment: the `problem` it records for a reply it could not parse (which
quotes that reply, and so what the reply quoted) is gold in events, nodes and report data alike."""

from __future__ import annotations

from api.schema.redaction import redact_event, redact_gold, redact_node

QUOTE = "the reference says: donate after four months"


def test_a_judges_problem_is_hidden_in_its_event_node_and_report_rows_but_other_details_stay() -> None:
    found: list[str] = []
    event = redact_event("MemoryJudged", {"reason": QUOTE, "details": {"problem": QUOTE, "attempts": 2}}, found)
    assert event["details"] == {"problem": None, "attempts": 2} and event["reason"] is None
    node = redact_node(["Judgment"], {"details": f'{{"problem": "{QUOTE}", "valid": false}}'}, found)
    assert QUOTE not in node["details"] and '"valid":false' in node["details"]
    report = redact_gold({"judgments": [{"kind": "accuracy", "details": {"problem": QUOTE}}]}, found)
    assert report["judgments"][0]["details"]["problem"] is None
    assert found == ["reason", "details.problem", "details.problem", "judgments[0].details.problem"]
    # a `problem` of a record that is not a judgment (e.g. a run's details) is not gold
    assert redact_gold({"runs": [{"details": {"problem": "timeout"}}]}, []) == {
        "runs": [{"details": {"problem": "timeout"}}]
    }
