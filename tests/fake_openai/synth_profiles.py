"""Scripted stage 0 (linker) and stage I (Director, reviewer) replies for SynthesisPolicy.

Linker: searches for the seed's title and links the first candidates (relation named after both titles,
weight 0.8). Director: one fact per document offered ("Is affected by <title>", grounded in it) and topics
over consecutive facts. Reviewer: verdicts from the policy option `profile_reviews` (a list consumed in order;
"accept" when exhausted)."""

from __future__ import annotations

import hashlib
from typing import Any

from tests.fake_openai.server import Reply


def _link_queries(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    return Reply.json({"queries": [view["seed"]["title"]]})


def _link_pick(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    seed = view["seed"]
    chosen = view["candidates"][: max(0, min(view["links_wanted"], 2))]
    return Reply.json(
        {
            "links": [
                {
                    "dst_doc_id": c["doc_id"],
                    "relation": f"{seed['title']} is read together with {c['title']}",
                    "weight": 0.8,
                }
                for c in chosen
            ]
        }
    )


def _director(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    docs = view["documents"]
    tag = hashlib.sha256("|".join(d["doc_id"] for d in docs).encode()).hexdigest()[:6]
    facts = [
        {
            "key": f"f{i + 1}",
            "text": f"Is personally affected by {d['title'].lower()} (case {tag}-{i + 1})",
            "category": "health",
            "source_doc_id": d["doc_id"],
        }
        for i, d in enumerate(docs)
    ]
    if view.get("revision_problems"):  # a revision answers the reviewer (an unchanged draft would get the same review)
        facts[0]["text"] += ", stage 2 since last spring"
    if len(facts) < 2:
        facts.append({**facts[0], "key": "f2", "text": f"Lives alone and manages care without help ({tag})"})
    wanted = view["topics_wanted"]
    topics = [
        {
            "key": f"t{j + 1}",
            "title": f"Questions about {docs[j % len(docs)]['title']}",
            "intent": f"understand what {docs[j % len(docs)]['title']} means for them",
            "fact_keys": [facts[j % len(facts)]["key"], facts[(j + 1) % len(facts)]["key"]],
        }
        for j in range(wanted)
    ]
    return Reply.json(
        {
            "name": f"Person {tag}",
            "description": f"A synthetic person ({tag}) with a few conditions.",
            "attributes": {"age": 40 + int(tag[:2], 16) % 40},
            "facts": facts,
            "topics": topics,
        }
    )


def _profile_review(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    script: list[str] = policy.options.setdefault("profile_reviews", [])
    verdict = script.pop(0) if script else "accept"
    problems = [] if verdict == "accept" else ["fact f1 does not say which stage of the condition applies"]
    return Reply.json({"verdict": verdict, "problems": problems})


HANDLERS = {
    "LinkQueries": _link_queries,
    "LinkProposals": _link_pick,
    "ProfileDraft": _director,
    "ProfileReview": _profile_review,
}
