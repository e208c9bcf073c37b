"""A judge's details belong to its judgment and are gold whole (whatever a judge of any kind writes there may
quote the reference: the `problem` of a reply it could not parse, the quality judge's `source_evidence`), in
events, nodes and report data alike; an endpoint failure's error text is gold when its request was (a judge's,
a synthesis role's), by the role of the record, wherever the record appears."""

from __future__ import annotations

from api.redaction import redact_event, redact_gold, redact_node

QUOTE = "the reference says: donate after four months"


def test_a_judges_details_are_hidden_whole_in_its_event_node_and_report_rows() -> None:
    found: list[str] = []
    event = redact_event("MemoryJudged", {"reason": QUOTE, "details": {"problem": QUOTE, "attempts": 2}}, found)
    assert event["details"] is None and event["reason"] is None
    stored = f'{{"source_evidence": "{QUOTE}", "tokens_in": 3}}'
    node = redact_node(["Judgment"], {"id": "j1", "details": stored}, found)
    assert node == {"id": "j1", "details": None}
    report = redact_gold({"judgments": [{"kind": "quality:rule_application", "details": {"source_evidence": QUOTE}}]},
                         found)
    assert report["judgments"][0]["details"] is None and report["judgments"][0]["kind"] == "quality:rule_application"
    qa = redact_event("QaAnswerJudged", {"rationale": QUOTE, "correct": True}, found)
    gate = redact_event("ItemVerified", {"item_id": "i1", "gate": "history_gate", "details": {"blind_answer": QUOTE}},
                        found)
    assert qa == {"rationale": None, "correct": True} and gate["details"] is None and gate["gate"] == "history_gate"
    assert found == ["reason", "details", "details", "judgments[0].details", "rationale", "details"]


def test_an_empty_details_hides_nothing_and_is_not_listed() -> None:
    found: list[str] = []
    assert redact_event("AnswerJudged", {"rationale": "", "details": {}}, found) == {"rationale": "", "details": {}}
    assert found == []


def test_a_problem_of_a_record_that_is_not_a_judgment_is_not_gold() -> None:
    assert redact_gold({"runs": [{"details": {"problem": "timeout"}}]}, []) == {
        "runs": [{"details": {"problem": "timeout"}}]
    }


def test_an_endpoint_failure_is_gold_by_its_role_in_events_nodes_and_report_rows() -> None:
    found: list[str] = []
    judge = redact_event("EndpointFailed", {"failure_id": "f1", "role": "judge", "error": QUOTE}, found)
    answerer = redact_event("EndpointFailed", {"failure_id": "f2", "role": "answerer", "error": "HTTP 500"}, found)
    assert judge == {"failure_id": "f1", "role": "judge", "error": None}
    assert answerer["error"] == "HTTP 500"
    node = redact_node(["EndpointFailure"], {"id": "f3", "role": "synthesis", "error": QUOTE}, found)
    assert node["error"] is None
    report = redact_gold(
        {"runs": [{"endpoint_failures": [
            {"role": "judge", "stage": "judge:accuracy", "latest_error": QUOTE},
            {"role": "judge@other-model", "stage": "judge:accuracy", "latest_error": QUOTE},
            {"role": "state", "stage": "state_summary", "latest_error": "timeout after 5 s"},
        ]}]},
        found,
    )
    rows = report["runs"][0]["endpoint_failures"]
    assert [r["latest_error"] for r in rows] == [None, None, "timeout after 5 s"]
    assert found == [
        "error", "error", "runs[0].endpoint_failures[0].latest_error", "runs[0].endpoint_failures[1].latest_error"
    ]
