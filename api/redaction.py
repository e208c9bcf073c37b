"""Gold: what only a request with the API token (or a server that reveals gold) may see, in every channel.

Gold is what a passing answer must contain or what grades it, and any text written about it:

* `GOLD_KEYS`, gold under that key wherever it appears (records, event payloads, item metadata, report data):
  reference answers, LoCoMo's `adversarial_answer` (the trap answer kept in item metadata) and the iKAT PTKB
  relevance grades (`ptkb_rel_nist`, `ptkb_rel_org` in item metadata);
* `GOLD_FIELDS`, gold fields of one kind of record: a Requirement's text r and required judgment/action a
  (and the length of r); a judge's verdict record's rationale and its whole `details` (whatever a judge of any
  kind writes there, such as the quality judge's `source_evidence`, may quote the reference: gold by the record
  it belongs to, not field by field); an Adjudication's reason (a person's why, which may quote the reference);
* `RECORD_KINDS`, kinds decided by the record itself: an endpoint failure of a role whose requests carry gold
  (a judge's, a synthesis role's; `agents.llm.settings.GOLD_ROLES`) keeps its error text as gold, since an
  endpoint may echo the request it refused (the judge's input: the reference answer) in its error body; a turn
  whose metadata says it states an item's reference answer (`graph.events.REFERENCE_ANSWER_OF`: iKAT's
  canonical responses, public history of the later turns) keeps its text as gold.

Kinds are known from a node's label, an event's type (`EVENT_KINDS`) or, in report data, from the key of the
list holding the records (`CONTAINER_KINDS`). Ids and structure (which turns, facts, sessions and document
spans a requirement points to, verdicts and scores) are not gold. JSON held in strings (the `metadata` and
`details` properties of nodes) is parsed and redacted the same way, never passed through.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from agents.llm.settings import role_carries_gold
from graph.events import REFERENCE_ANSWER_OF

GOLD_KEYS = frozenset({"reference_answer", "adversarial_answer", "ptkb_rel_nist", "ptkb_rel_org"})

# A judge's record is gold with its `details` whole (its `problem` quotes a reply it could not parse; a quality
# judge's `source_evidence` and `candidate_excerpt` quote the reference it checked against).
GOLD_FIELDS: dict[str, frozenset[str]] = {
    "Requirement": frozenset({"text", "action", "text_chars"}),
    "Judgment": frozenset({"rationale", "details"}),
    "Adjudication": frozenset({"reason"}),
    "QaJudgment": frozenset({"rationale", "details"}),  # eval qa verdicts: the judge may quote the reference
    "MemoryJudgment": frozenset({"reason", "details"}),  # eval memory verdicts: the reason quotes private facts
    # Synthesis: a reviewer's or gate's reasons about an item draft may quote its reference answer; the blind
    # solver's answer and the comparator's notes are graded against it. A gate's verdict on an item is a judge's
    # record: its details are gold whole.
    "SynthesisDraft": frozenset({"reasons", "problem", "blind_answer", "comparator_notes"}),
    "Verification": frozenset({"reasons", "details"}),
    # An endpoint failure of a gold-bearing request (see RECORD_KINDS): its error text, as stored on the event
    # and node (`error`) and as the report's per-role summary lists it (`latest_error`).
    "GoldEndpointFailure": frozenset({"error", "latest_error"}),
    # A turn that states an item's reference answer (iKAT's canonical response; see RECORD_KINDS).
    "AnswerTurn": frozenset({"text", "text_chars"}),
}


def _endpoint_failure_kind(record: Mapping[str, Any]) -> str | None:
    return "GoldEndpointFailure" if role_carries_gold(str(record.get("role") or "")) else None


def _turn_kind(record: Mapping[str, Any]) -> str | None:
    return "AnswerTurn" if states_reference_answer(record) else None


def states_reference_answer(turn: Mapping[str, Any]) -> bool:
    """True for a turn (node properties or TurnAppended payload) whose text is an item's reference answer."""
    metadata = turn.get("metadata")
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return False
    return isinstance(metadata, dict) and bool(metadata.get(REFERENCE_ANSWER_OF))


# Kinds whose gold fields depend on the record: kind -> the GOLD_FIELDS kind of one record (None: no gold field).
RECORD_KINDS: dict[str, Callable[[Mapping[str, Any]], str | None]] = {
    "EndpointFailure": _endpoint_failure_kind,
    "Turn": _turn_kind,
}

# Keys whose value belongs to the record holding them (a judgment's `details`): redacted as that record's kind.
_OWN_PARTS = frozenset({"details"})

EVENT_KINDS = {"RequirementMapped": "Requirement", "AnswerJudged": "Judgment", "AnswerAdjudicated": "Adjudication",
               "QaAnswerJudged": "QaJudgment", "MemoryJudged": "MemoryJudgment",
               "SynthesisDraftRecorded": "SynthesisDraft", "ItemVerified": "Verification",
               "EndpointFailed": "EndpointFailure", "TurnAppended": "Turn"}

CONTAINER_KINDS = {"requirements": "Requirement", "judgments": "Judgment", "adjudications": "Adjudication",
                   "qa_judgments": "QaJudgment", "memory_judgments": "MemoryJudgment",
                   "endpoint_failures": "EndpointFailure", "turns": "Turn"}

KNOWN_KINDS = frozenset(GOLD_FIELDS) | frozenset(RECORD_KINDS)

_EMPTY: tuple[Any, ...] = (None, "", {}, [])


def redact_gold(value: Any, found: list[str], path: str = "", kind: str | None = None) -> Any:
    """A copy of `value` with every gold value replaced by None; their paths are appended to `found`.

    `kind` names the kind of record `value` is (a key of GOLD_FIELDS), when known."""
    if isinstance(value, dict):
        decide = RECORD_KINDS.get(kind or "")
        if decide is not None:
            kind = decide(value)
        hidden = GOLD_KEYS | GOLD_FIELDS.get(kind or "", frozenset())
        out: dict[str, Any] = {}
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if key in hidden:
                # An empty value hides nothing: it stays as it is and is not listed.
                empty = any(item is e or (type(item) is type(e) and item == e) for e in _EMPTY)
                out[key] = item if empty else None
                if not empty:
                    found.append(where)
            elif isinstance(item, str) and item[:1] in ("{", "["):
                out[key] = _redact_json_text(item, found, where, kind if key in _OWN_PARTS else None)
            elif key in _OWN_PARTS:
                out[key] = redact_gold(item, found, where, kind)
            else:
                out[key] = redact_gold(item, found, where, CONTAINER_KINDS.get(str(key)))
        return out
    if isinstance(value, list):
        return [redact_gold(item, found, f"{path}[{index}]", kind) for index, item in enumerate(value)]
    return value


def redact_node(labels: list[str], props: dict[str, Any], found: list[str]) -> dict[str, Any]:
    """A node's properties without gold (its label decides which fields are gold)."""
    kind = next((label for label in labels if label in KNOWN_KINDS), None)
    result: dict[str, Any] = redact_gold(props, found, kind=kind)
    return result


def redact_event(event_type: str, payload: Any, found: list[str]) -> Any:
    """An event payload without gold (its type decides which fields are gold)."""
    return redact_gold(payload, found, kind=EVENT_KINDS.get(event_type))


def _redact_json_text(text: str, found: list[str], path: str, kind: str | None = None) -> str | None:
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    before = len(found)
    redacted = redact_gold(parsed, found, path, kind)
    if len(found) == before:
        return text
    return json.dumps(redacted, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
