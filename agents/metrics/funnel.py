"""The evidence funnel (PROTOCOL.md, beyond the paper): for each answer requirement of each attempt, from the
graph alone, how far its evidence got.

Steps, in order:
- disclosed: every fact of the requirement was disclosed by a turn (DISCLOSES);
- remembered: every fact has a memory of the method's memory system (or a state of the run's state summary)
  DERIVED_FROM one of its disclosing turns;
- retrieved: such a memory or state reached the agent (returned by a memory or memkb search, or, for states,
  shown in the system prompt);
- exposed: every knowledge span's document came back from a knowledge search or a Read;
- read: for every span, a Read returned lines overlapping it;
- cited: for every span, the answer names the document (id or title) or repeats 8 consecutive words of it.
A requirement without facts has n/a personal steps; a method without memory has n/a remembered/retrieved; a
requirement without spans has n/a knowledge steps. The first `no` is where the chain broke.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Literal

from neo4j import Driver
from pydantic import BaseModel

from agents.metrics.attempts import RunRecord
from graph.cypher_files import load_cypher

STEPS = ("disclosed", "remembered", "retrieved", "exposed", "read", "cited")
Step = Literal["yes", "no", "n/a"]
_SHINGLE = 8
_WORD = re.compile(r"[a-z0-9]+")


class RequirementFunnel(BaseModel):
    item_id: str
    requirement_id: str
    kind: str
    steps: dict[str, Step]
    broke_at: str | None

    @property
    def complete(self) -> bool:
        return self.broke_at is None


def requirement_kind(has_facts: bool, has_spans: bool) -> str:
    if has_facts and has_spans:
        return "personal+knowledge"
    if has_facts:
        return "personal only"
    if has_spans:
        return "knowledge only"
    return "neither"


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def cites(answer: str, span: dict[str, Any]) -> bool:
    """The answer names the span's document (id, or a title of 12+ characters) or repeats 8 of its words."""
    lowered = answer.lower()
    if span["doc_id"].lower() in lowered:
        return True
    title = (span.get("title") or "").strip().lower()
    if len(title) >= 12 and title in lowered:
        return True
    span_words = _words(span.get("text") or "")
    if len(span_words) < _SHINGLE:
        return False
    shingles = {tuple(span_words[i : i + _SHINGLE]) for i in range(len(span_words) - _SHINGLE + 1)}
    answer_words = _words(answer)
    return any(tuple(answer_words[i : i + _SHINGLE]) in shingles for i in range(len(answer_words) - _SHINGLE + 1))


def compute_funnel(driver: Driver, database: str, run: RunRecord) -> list[RequirementFunnel]:
    """One funnel row per requirement of every planned item of the run."""
    method = run.config.get("method") or {}
    memory_system = method.get("memory_system")
    summary_ids = list((run.config.get("state_summaries") or {}).values())
    states_in_prompt = bool(method.get("state_in_prompt"))
    with driver.session(database=database) as session:
        requirements = [dict(r) for r in session.run(load_cypher("agents/funnel_requirements"), run_id=run.run_id)]
        returns = [dict(r) for r in session.run(load_cypher("agents/funnel_returns"), run_id=run.run_id)]
        profiles = sorted({r["profile_id"] for r in requirements})
        derived = [
            dict(r)
            for r in session.run(
                load_cypher("agents/funnel_memories"),
                profile_ids=profiles,
                system=memory_system or "",
                summary_ids=summary_ids,
            )
        ]
    memories_of_turn: dict[str, set[tuple[str, str]]] = {}
    for d in derived:
        memories_of_turn.setdefault(d["turn_id"], set()).add((d["kind"], d["id"]))
    returned: dict[str, dict[str, Any]] = {}
    for r in returns:
        got = returned.setdefault(r["item_id"], {"memory": set(), "state": set(), "docs": set(), "reads": []})
        if r["kind"] in ("memory", "state"):
            got[r["kind"]].add(r["id"])
        elif r["kind"] == "document":
            got["docs"].add(r["id"])
            if r["tool"] == "read":
                got["reads"].append((r["id"], r["start_line"], r["end_line"]))
    has_memory = bool(memory_system) or bool(summary_ids)
    rows: list[RequirementFunnel] = []
    for req in requirements:
        got = returned.get(req["item_id"], {"memory": set(), "state": set(), "docs": set(), "reads": []})
        steps: dict[str, Step] = {}
        facts = req["facts"]
        if not facts:
            steps.update(disclosed="n/a", remembered="n/a", retrieved="n/a")
        else:
            steps["disclosed"] = "yes" if all(f["turns"] for f in facts) else "no"
            if not has_memory:
                steps.update(remembered="n/a", retrieved="n/a")
            else:
                holders = [set().union(*(memories_of_turn.get(t, set()) for t in f["turns"])) for f in facts]
                steps["remembered"] = "yes" if all(holders) else "no"
                delivered = [
                    any(
                        (kind == "memory" and mid in got["memory"])
                        or (kind == "state" and (mid in got["state"] or states_in_prompt))
                        for kind, mid in h
                    )
                    for h in holders
                ]
                steps["retrieved"] = "yes" if delivered and all(delivered) else "no"
        spans = req["spans"]
        if not spans:
            steps.update(exposed="n/a", read="n/a", cited="n/a")
        else:
            steps["exposed"] = "yes" if all(s["doc_id"] in got["docs"] for s in spans) else "no"
            steps["read"] = (
                "yes"
                if all(
                    any(
                        doc == s["doc_id"] and start is not None and start <= s["end_line"] and end >= s["start_line"]
                        for doc, start, end in got["reads"]
                    )
                    for s in spans
                )
                else "no"
            )
            answer = req["answer"] or ""
            steps["cited"] = "yes" if answer and all(cites(answer, s) for s in spans) else "no"
        broke = next((step for step in STEPS if steps[step] == "no"), None)
        rows.append(
            RequirementFunnel(
                item_id=req["item_id"],
                requirement_id=req["requirement_id"],
                kind=requirement_kind(bool(facts), bool(spans)),
                steps=steps,
                broke_at=broke,
            )
        )
    return rows


def aggregate_funnel(rows: list[RequirementFunnel]) -> dict[str, Any]:
    """Counts per step (yes / no / n/a), where chains broke, overall and per requirement kind."""

    def summary(subset: list[RequirementFunnel]) -> dict[str, Any]:
        steps = {step: dict(Counter(r.steps[step] for r in subset)) for step in STEPS}
        broke = Counter(r.broke_at or "complete" for r in subset)
        return {"n": len(subset), "steps": steps, "broke_at": {k: broke.get(k, 0) for k in (*STEPS, "complete")}}

    kinds = sorted({r.kind for r in rows})
    return {"all": summary(rows), "by_kind": {k: summary([r for r in rows if r.kind == k]) for k in kinds}}
