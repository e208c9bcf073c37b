"""The material a judge reads: the grading reference of an item (from the graph, judges only) and what the
attempt's method saw (the S(H) shown in its prompt, every Search and Read return whole and in the order seen)
and its answer, rendered as prompt sections.

Nothing is cut unless a judge context budget is set (`RunOptions.judge_context_chars`, `run
--judge-context-chars N`; off by default). When the sections would exceed it, what is left out follows one
rule, and the material records it (`JudgeMaterial.context`, stored in each verdict's details as
`judge_context` and counted in the report):
1. never shortened: the request, the reference answer, the requirements (with their quoted spans), the public
   history, the S(H) block and the answer;
2. first the grader's history and support documents: each is cut to its requirement spans (with 3 lines of
   context) plus as much of its beginning as a per-document cap allows, the largest equal cap that fits;
3. then the tool returns: each return longer than a per-return cap is cut at its end, the largest equal cap
   that fits, with the number of characters left out marked in place;
4. if the never-shortened sections alone exceed the budget, everything else is at its minimum and the
   material is marked `over_budget`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from neo4j import Driver

from agents.history import load_public_history, render_history
from agents.judging.blind_evidence import render_blind_evidence
from agents.judging.item_kinds import ItemTraits
from graph.cypher_files import load_cypher
from graph.errors import UsageError

CONTEXT_LINES = 3
NO_STATES = "(the assistant was shown no state summary)"


@dataclass(frozen=True)
class JudgeMaterial:
    """Everything the judge prompts are filled with, as text, plus the ids a report may want. `context` is
    None without a budget; with one: budget, characters, what was left out (see the module docstring)."""

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
    states: str = NO_STATES
    # the tool calls as the blind quality judge sees them (agents/judging/blind_evidence.py)
    blind_evidence: str | None = None
    context: dict[str, Any] | None = field(default=None, compare=False)
    # question type, labels, metadata: which judges apply (agents/judging/item_kinds.py); never a prompt value
    traits: ItemTraits = field(default_factory=ItemTraits, compare=False)

    def values(self) -> dict[str, str]:
        return {
            "question": self.question,
            "asked_at": self.asked_at,
            "history": self.history,
            "reference_answer": self.reference_answer,
            "requirements": self.requirements,
            "documents": self.documents,
            "states": self.states,
            "evidence": self.evidence,
            "answer": self.answer,
        }

    def blind_values(self) -> dict[str, str]:
        """What the blind quality judge's prompts are filled with: no S(H) block, and the tool calls in the one
        shape every method's take (App. D.2; the accuracy judge keeps `values()`, App. D.1)."""
        if self.blind_evidence is None:
            raise ValueError(f"judge material of item {self.item_id} has no blind rendering of its tool calls")
        values = self.values()
        del values["states"]
        values["evidence"] = self.blind_evidence
        return values

    def size(self) -> int:
        """Characters of all sections (what the budget counts)."""
        return sum(len(v) for v in self.values().values())


def load_item_reference(driver: Driver, database: str, item_id: str) -> dict[str, Any]:
    with driver.session(database=database) as session:
        record = session.run(load_cypher("agents/judge_reference"), item_id=item_id).single()
    if record is None:
        raise UsageError(f"item {item_id!r} is not in the graph")
    return dict(record)


def load_attempt_trace(driver: Driver, database: str, attempt_id: str) -> dict[str, Any]:
    with driver.session(database=database) as session:
        record = session.run(load_cypher("agents/attempt_trace"), attempt_id=attempt_id).single()
    if record is None:
        raise UsageError(f"attempt {attempt_id!r} is not in the graph")
    return {"attempt": dict(record["attempt"]), "calls": [dict(c) for c in record["calls"]]}


def build_material(driver: Driver, database: str, attempt_id: str) -> JudgeMaterial:
    """Read the reference, the public history and the attempt's trace from the graph and render them."""
    return MaterialSource(driver, database).material(attempt_id)


class MaterialSource:
    """Judge material for many attempts: an item's reference and its profile's history are read once and
    shared by every method's attempt at that item (the attempt's own trace is always read fresh).
    `context_budget`: the judge context budget in characters (None: no budget, nothing is cut)."""

    def __init__(self, driver: Driver, database: str, *, context_budget: int | None = None) -> None:
        self.driver = driver
        self.database = database
        self.context_budget = context_budget
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
        self,
        attempt_id: str,
        *,
        recorded: tuple[str, list[dict[str, Any]], str] | None = None,
        states: str | None = None,
    ) -> JudgeMaterial:
        """The material for one attempt; `recorded` = (item id, tool calls, answer) just written for it saves
        reading them back (calls in the shape the attempt_trace query returns); `states` = the S(H) block the
        method was shown in its prompt (None: it was shown none)."""
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
        material = JudgeMaterial(
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
            blind_evidence=render_blind_evidence(trace["calls"]),
            answer=str(trace["attempt"].get("answer") or "(no answer)"),
            states=states if states else NO_STATES,
            traits=ItemTraits.from_row(ref.get("question_type"), ref.get("labels"), ref.get("item_metadata")),
        )
        if self.context_budget is None:
            return material
        return fit_budget(material, self.context_budget, ref, span_lines, trace["calls"])


def fit_budget(
    material: JudgeMaterial,
    budget: int,
    ref: dict[str, Any],
    span_lines: dict[str, list[tuple[int, int]]],
    calls: list[dict[str, Any]],
) -> JudgeMaterial:
    """Apply the module docstring's rule to fit `material` into `budget` characters; records what it left out."""
    full_docs, full_evidence = len(material.documents), len(material.evidence)
    context: dict[str, Any] = {
        "budget": budget,
        "chars_full": material.size(),
        "documents_chars_left_out": 0,
        "evidence_chars_left_out": 0,
        "returns_shortened": 0,
        "over_budget": False,
    }
    if material.size() > budget:
        fixed = material.size() - full_docs - full_evidence
        docs_cap = _largest_cap(
            lambda cap: len(render_documents(ref["support"], ref["history_docs"], span_lines, max_chars=cap)),
            budget - fixed - full_evidence,
            max(full_docs, 1),
        )
        documents = render_documents(ref["support"], ref["history_docs"], span_lines, max_chars=docs_cap)
        evidence, blind = material.evidence, material.blind_evidence
        if fixed + len(documents) + len(evidence) > budget:
            room = budget - fixed - len(documents)
            longest = max((len(str(c.get("response") or "")) for c in calls), default=0)
            cap = _largest_cap(lambda c: len(render_evidence(calls, max_response_chars=c)), room, max(longest, 1))
            evidence = render_evidence(calls, max_response_chars=cap)
            blind = render_blind_evidence(calls, max_response_chars=cap)
            context["returns_shortened"] = sum(1 for c in calls if len(str(c.get("response") or "")) > cap)
        material = replace(material, documents=documents, evidence=evidence, blind_evidence=blind)
        context["documents_chars_left_out"] = max(0, full_docs - len(documents))
        context["evidence_chars_left_out"] = max(0, full_evidence - len(evidence))
        context["over_budget"] = material.size() > budget
    context["chars"] = material.size()
    return replace(material, context=context)


def _largest_cap(size_at: Callable[[int], int], room: int, upper: int) -> int:
    """The largest cap in [0, upper] whose rendering fits in `room` (0 when none does); sizes grow with caps."""
    if size_at(upper) <= room:
        return upper
    low, high = 0, upper
    while low < high:
        mid = (low + high + 1) // 2
        if size_at(mid) <= room:
            low = mid
        else:
            high = mid - 1
    return low


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
    support: list[dict[str, Any]],
    history_docs: list[dict[str, Any]],
    spans: dict[str, list[tuple[int, int]]],
    *,
    max_chars: int | None = None,
) -> str:
    """Numbered lines of every support and history document, whole (`max_chars`: per-document cap, see
    `excerpt`; only under a judge context budget)."""
    parts: list[str] = []
    for kind, docs in (("support document", support), ("history document", history_docs)):
        for doc in docs:
            spans_of = spans.get(doc["doc_id"], [])
            body = excerpt(doc["text"], spans_of) if max_chars is None else excerpt(doc["text"], spans_of, max_chars)
            parts.append(f"### [{doc['doc_id']}] {doc['title']} ({kind})\n{body}")
    return "\n\n".join(parts) or "(none)"


def excerpt(text: str, spans: list[tuple[int, int]], max_chars: int | None = None) -> str:
    """Numbered lines of a document (all of them when `max_chars` is None); when it is longer than
    `max_chars`, the requirement spans (with a little context) and as much of the beginning as fits, gaps
    marked."""
    lines = text.split("\n")
    numbered = [f"{i}: {line}" for i, line in enumerate(lines, start=1)]
    full = "\n".join(numbered)
    if max_chars is None or len(full) <= max_chars:
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


def render_evidence(calls: Sequence[dict[str, Any]], *, max_response_chars: int | None = None) -> str:
    """Every tool call in the order made, with its whole return (`max_response_chars`: cap per return, only
    under a judge context budget; what a cap leaves out is marked in place)."""
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
        if max_response_chars is not None and len(response) > max_response_chars:
            left_out = len(response) - max_response_chars
            response = response[:max_response_chars] + f" [... {left_out} characters left out: judge context budget]"
        # Every search tool is shown as `search` (the blind quality judge has its own uniform rendering,
        # agents/judging/blind_evidence.py).
        tool = "search" if str(call["tool"]).endswith("_search") else call["tool"]
        head = f"- round {call['round']}, call {call['ordinal'] + 1}: {tool} {args} ({status})"
        out.append(f"{head}\n  {response}")
    return "\n".join(out)
