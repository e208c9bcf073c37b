"""The material a judge reads: the grading reference of an item (from the graph, judges only) and the
attempt's visible evidence (its tool calls' returns) and answer, rendered as prompt sections."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from neo4j import Driver

from agents.history import load_public_history, render_history
from graph.cypher_files import load_cypher

MAX_DOC_CHARS = 12_000
MAX_RESPONSE_CHARS = 6_000
CONTEXT_LINES = 3


@dataclass(frozen=True)
class JudgeMaterial:
    """Everything the judge prompts are filled with, as text, plus the ids a report may want."""

    item_id: str
    profile_id: str
    question: str
    asked_at: str
    history: str
    reference_answer: str
    requirements: str
    requirement_ids: tuple[str, ...]
    documents: str
    evidence: str
    answer: str

    def values(self) -> dict[str, str]:
        return {
            "question": self.question,
            "asked_at": self.asked_at,
            "history": self.history,
            "reference_answer": self.reference_answer,
            "requirements": self.requirements,
            "documents": self.documents,
            "evidence": self.evidence,
            "answer": self.answer,
        }


def load_item_reference(driver: Driver, database: str, item_id: str) -> dict[str, Any]:
    with driver.session(database=database) as session:
        record = session.run(load_cypher("agents/judge_reference"), item_id=item_id).single()
    if record is None:
        raise ValueError(f"item {item_id!r} is not in the graph")
    return dict(record)


def load_attempt_trace(driver: Driver, database: str, attempt_id: str) -> dict[str, Any]:
    with driver.session(database=database) as session:
        record = session.run(load_cypher("agents/attempt_trace"), attempt_id=attempt_id).single()
    if record is None:
        raise ValueError(f"attempt {attempt_id!r} is not in the graph")
    return {"attempt": dict(record["attempt"]), "calls": [dict(c) for c in record["calls"]]}


def build_material(driver: Driver, database: str, attempt_id: str) -> JudgeMaterial:
    """Read the reference, the public history and the attempt's trace from the graph and render them."""
    return MaterialSource(driver, database).material(attempt_id)


class MaterialSource:
    """Judge material for many attempts: an item's reference and its profile's history are read once and
    shared by every method's attempt at that item (the attempt's own trace is always read fresh)."""

    def __init__(self, driver: Driver, database: str) -> None:
        self.driver = driver
        self.database = database
        self._lock = threading.Lock()
        self._items: dict[str, tuple[dict[str, Any], str]] = {}

    def _reference(self, item_id: str) -> tuple[dict[str, Any], str]:
        with self._lock:
            cached = self._items.get(item_id)
        if cached is not None:
            return cached
        ref = load_item_reference(self.driver, self.database, item_id)
        history = render_history(load_public_history(self.driver, self.database, str(ref["profile_id"])))
        with self._lock:
            self._items[item_id] = (ref, history)
        return ref, history

    def material(
        self, attempt_id: str, *, recorded: tuple[str, list[dict[str, Any]], str] | None = None
    ) -> JudgeMaterial:
        """The material for one attempt; `recorded` = (item id, tool calls, answer) just written for it saves
        reading them back (calls in the shape the attempt_trace query returns)."""
        if recorded is None:
            trace = load_attempt_trace(self.driver, self.database, attempt_id)
        else:
            item, calls, answer = recorded
            trace = {"attempt": {"item_id": item, "answer": answer}, "calls": calls}
        item_id = str(trace["attempt"]["item_id"])
        ref, history = self._reference(item_id)
        span_lines: dict[str, list[tuple[int, int]]] = {}
        for req in ref["requirements"]:
            for span in req["spans"]:
                span_lines.setdefault(span["doc_id"], []).append((int(span["start_line"]), int(span["end_line"])))
        doc_texts = {d["doc_id"]: d["text"] for d in [*ref["support"], *ref["history_docs"]]}
        return JudgeMaterial(
            item_id=item_id,
            profile_id=str(ref["profile_id"]),
            question=str(ref["question"]),
            asked_at=str(ref["asked_at"] or "at an unknown time"),
            history=history or "(no history)",
            reference_answer=str(ref["reference_answer"] or "(none given)"),
            requirements=render_requirements(ref["requirements"], doc_texts),
            requirement_ids=tuple(str(r["id"]) for r in ref["requirements"]),
            documents=render_documents(ref["support"], ref["history_docs"], span_lines),
            evidence=render_evidence(trace["calls"]),
            answer=str(trace["attempt"].get("answer") or "(no answer)"),
        )


def render_requirements(requirements: list[dict[str, Any]], doc_texts: dict[str, str]) -> str:
    if not requirements:
        return "(no requirements recorded; grade against the reference answer)"
    out: list[str] = []
    for req in requirements:
        out.append(f"- [{req['id']}] {req['text']}")
        if req.get("action"):
            out.append(f"  required judgment or action: {req['action']}")
        for st in req["statements"]:
            out.append(f"  user statement [{st['id']}]: {st['text']}")
        for fact in req["facts"]:
            out.append(f"  personal condition [{fact['id']}]: {fact['text']}")
        for span in req["spans"]:
            text = doc_texts.get(span["doc_id"])
            quoted = ""
            if text is not None:
                lines = text.split("\n")[span["start_line"] - 1 : span["end_line"]]
                quoted = ": " + " / ".join(line.strip() for line in lines if line.strip())
            out.append(f"  knowledge [{span['doc_id']} lines {span['start_line']}-{span['end_line']}]{quoted}")
    return "\n".join(out)


def render_documents(
    support: list[dict[str, Any]], history_docs: list[dict[str, Any]], spans: dict[str, list[tuple[int, int]]]
) -> str:
    parts: list[str] = []
    for kind, docs in (("support document", support), ("history document", history_docs)):
        for doc in docs:
            body = excerpt(doc["text"], spans.get(doc["doc_id"], []))
            parts.append(f"### [{doc['doc_id']}] {doc['title']} ({kind})\n{body}")
    return "\n\n".join(parts) or "(none)"


def excerpt(text: str, spans: list[tuple[int, int]], max_chars: int = MAX_DOC_CHARS) -> str:
    """Numbered lines of a document; when it is too long, the requirement spans (with a little context) and
    as much of the beginning as fits, with gaps marked."""
    lines = text.split("\n")
    numbered = [f"{i}: {line}" for i, line in enumerate(lines, start=1)]
    full = "\n".join(numbered)
    if len(full) <= max_chars:
        return full
    keep: set[int] = set()
    for start, end in spans:
        keep.update(range(max(1, start - CONTEXT_LINES), min(len(lines), end + CONTEXT_LINES) + 1))
    budget = max_chars - sum(len(numbered[i - 1]) + 1 for i in keep)
    for i in range(1, len(lines) + 1):
        if budget <= 0:
            break
        if i not in keep:
            keep.add(i)
            budget -= len(numbered[i - 1]) + 1
    out: list[str] = []
    previous = 0
    for i in sorted(keep):
        if i != previous + 1:
            out.append("[...]")
        out.append(numbered[i - 1])
        previous = i
    if previous < len(lines):
        out.append("[...]")
    return "\n".join(out)


def render_evidence(calls: list[dict[str, Any]]) -> str:
    if not calls:
        return "(the assistant made no tool calls)"
    out: list[str] = []
    for call in calls:
        args = call.get("arguments") or "{}"
        try:
            args = json.dumps(json.loads(args), ensure_ascii=False, sort_keys=True)
        except (TypeError, json.JSONDecodeError):
            args = str(args)
        status = "ok" if call.get("ok") else f"failed: {call.get('error')}"
        response = str(call.get("response") or "")
        if len(response) > MAX_RESPONSE_CHARS:
            response = response[:MAX_RESPONSE_CHARS] + " [...]"
        # Every search tool is shown as `search`, so the tool names do not tell the (blind) judge the method.
        tool = "search" if str(call["tool"]).endswith("_search") else call["tool"]
        head = f"- round {call['round']}, call {call['ordinal'] + 1}: {tool} {args} ({status})"
        out.append(f"{head}\n  {response}")
    return "\n".join(out)
