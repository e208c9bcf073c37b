"""Gold: what only a request with the API token (or a server that reveals gold) may see, in every channel.

Gold is what a passing answer must contain or what grades it:

* `GOLD_KEYS`, gold under that key wherever it appears (records, event payloads, item metadata, report data):
  reference answers, LoCoMo's `adversarial_answer` (the trap answer kept in item metadata) and the iKAT PTKB
  relevance grades (`ptkb_rel_nist`, `ptkb_rel_org` in item metadata);
* `GOLD_FIELDS`, gold fields of one kind of record: a Requirement's text r and required judgment/action a
  (and the length of r), a Judgment's rationale (an accuracy or error-analysis judge quotes the reference), an
  Adjudication's reason (a person's why, which may quote the reference like a judge's rationale).

Kinds are known from a node's label, an event's type (`EVENT_KINDS`) or, in report data, from the key of the
list holding the records (`CONTAINER_KINDS`). Ids and structure (which turns, facts, sessions and document
spans a requirement points to, verdicts and scores) are not gold. JSON held in strings (the `metadata` and
`details` properties of nodes) is parsed and redacted the same way, never passed through.
"""

from __future__ import annotations

import json
from typing import Any

GOLD_KEYS = frozenset({"reference_answer", "adversarial_answer", "ptkb_rel_nist", "ptkb_rel_org"})

# A judge's `problem` (in its details) quotes the reply it could not parse, and so what the reply quoted.
GOLD_FIELDS: dict[str, frozenset[str]] = {
    "Requirement": frozenset({"text", "action", "text_chars"}),
    "Judgment": frozenset({"rationale", "problem"}),
    "Adjudication": frozenset({"reason"}),
    "QaJudgment": frozenset({"rationale", "problem"}),  # eval qa verdicts: the judge may quote the reference
    "MemoryJudgment": frozenset({"reason", "problem"}),  # eval memory verdicts: the reason quotes private facts
    # Synthesis: a reviewer's or gate's reasons about an item draft may quote its reference answer; the blind
    # solver's answer and the comparator's notes are graded against it.
    "SynthesisDraft": frozenset({"reasons", "problem", "blind_answer", "comparator_notes"}),
    "Verification": frozenset({"reasons", "problem", "blind_answer", "comparator_notes"}),
}

# Keys whose value belongs to the record holding them (a judgment's `details`): redacted as that record's kind.
_OWN_PARTS = frozenset({"details"})

EVENT_KINDS = {"RequirementMapped": "Requirement", "AnswerJudged": "Judgment", "AnswerAdjudicated": "Adjudication",
               "QaAnswerJudged": "QaJudgment", "MemoryJudged": "MemoryJudgment",
               "SynthesisDraftRecorded": "SynthesisDraft", "ItemVerified": "Verification"}

CONTAINER_KINDS = {"requirements": "Requirement", "judgments": "Judgment", "adjudications": "Adjudication",
                   "qa_judgments": "QaJudgment", "memory_judgments": "MemoryJudgment"}



def redact_gold(value: Any, found: list[str], path: str = "", kind: str | None = None) -> Any:
    """A copy of `value` with every gold value replaced by None; their paths are appended to `found`.

    `kind` names the kind of record `value` is (a key of GOLD_FIELDS), when known."""
    if isinstance(value, dict):
        hidden = GOLD_KEYS | GOLD_FIELDS.get(kind or "", frozenset())
        out: dict[str, Any] = {}
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if key in hidden:
                out[key] = None
                if item is not None:
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
    kind = next((label for label in labels if label in GOLD_FIELDS), None)
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
