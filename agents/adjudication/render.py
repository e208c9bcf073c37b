"""A verdict case as plain text for the terminal: item, requirements, answer, judge's rationale, evidence trace."""

from __future__ import annotations

import json

from agents.adjudication.models import VerdictCase

ARGUMENT_CHARS = 200


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines()) if text else prefix + "(empty)"


def render_case(case: VerdictCase, *, index: int | None = None, total: int | None = None) -> str:
    """Everything a person needs to rule on one verdict (gold included: the terminal user owns the graph)."""
    head = f"[{index}/{total}] " if index is not None and total is not None else ""
    lines = [
        f"{head}attempt {case.attempt_id}  (method {case.method}, item {case.item_id})",
        f"judge verdict: {case.judge_verdict}"
        + ("" if case.judge_valid else " (the judge's reply was invalid)")
        + f"  judgment {case.judgment_id}"
        + (f"  model {case.judge_model}" if case.judge_model else ""),
    ]
    if case.adjudication is not None:
        a = case.adjudication
        lines.append(f"adjudicated: {a.verdict} by {a.adjudicator} at {a.adjudicated_at}: {a.reason or ''}")
    lines += ["", "question:", _indent(case.question)]
    if case.reference_answer:
        lines += ["reference answer:", _indent(case.reference_answer)]
    lines.append(f"requirements ({len(case.requirements)}):")
    for q in case.requirements:
        lines.append(f"  - [{q.requirement_id}] {q.text or ''}" + (f"  (action: {q.action})" if q.action else ""))
        for s in q.statements:
            lines.append(f"      user said [{s.turn_id}]: {s.text}")
        for span in q.spans:
            lines.append(f"      knowledge span: {span}")
    lines += ["answer:", _indent(case.answer or "(no answer)")]
    lines += ["judge's rationale:", _indent(case.judge_rationale or "(none)")]
    lines.append(f"evidence trace ({len(case.calls)} tool calls):")
    for c in case.calls:
        arguments = json.dumps(c.arguments, ensure_ascii=False)
        if len(arguments) > ARGUMENT_CHARS:
            arguments = arguments[:ARGUMENT_CHARS] + "..."
        status = "ok" if c.ok else f"failed: {c.error}"
        lines.append(f"  round {c.round}.{c.ordinal} {c.tool} {arguments} -> {status}")
        if c.returned:
            lines.append("      returned: " + ", ".join(c.returned))
        if c.response:
            lines.append(_indent(c.response, "      | "))
    return "\n".join(lines)
