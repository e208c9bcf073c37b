"""Scripted stage III and augmentation replies for SynthesisPolicy.

Builder: the first candidate as support; one requirement per condition (at most two; one when the view's
conditions_wanted is "one"), citing the condition's
first disclosing turn and lines 1-3 of the support; each requirement says it "must mention" the support's
first non-empty line. Option `builder_picks_exposed`: the first reply of a conversation names an exposed
document instead (the check must send it back). Question writer: a request built from the intent only.
Blind solver: "cannot tell" unless option `blind_copies` (then it answers with the whole document). Comparator:
"answerable_without_history" when the blind answer contains every requirement's "must mention" text, else
"history_dependent". Verifier: passes. Augmenter: variant 0 recombines, variant 1 replaces the support with the
first replacement candidate; option `augment_single_condition` ({variants}) makes a plan using one condition.
With several support documents per item (schema titles SupportDocsPlan, AugmentDocsPlan) the Builder takes the
first `support_docs_wanted` candidates and every requirement cites lines 1-3 of each (option
`builder_names_one_support`: the first reply names only one); the augmenter's replace swaps the first support
document for the first replacement candidate.
"""

from __future__ import annotations

import re
from typing import Any

from tests.fake_openai.server import Reply
from tests.fake_openai.synthesis_script import repairs

MUST = "must mention: "


def _first_line(excerpt: str) -> str:
    for line in excerpt.split("\n"):
        text = re.sub(r"^[0-9]+: ", "", line).strip()
        if len(text) > 8:
            return text[:40]
    return excerpt[:40]


def _plan(conditions: list[dict[str, Any]], support: dict[str, Any], n_conditions: int) -> dict[str, Any]:
    snippet = _first_line(support["excerpt"])
    chosen = conditions[:n_conditions]
    requirements = [
        {
            "text": f"Applies {support['title']} to condition {c['fact_id']}; {MUST}{snippet}",
            "fact_ids": [c["fact_id"]],
            "turn_ids": [c["disclosed_in"][0]["turn_id"]],
            "spans": [{"doc_id": support["doc_id"], "start_line": 1, "end_line": min(3, support["n_lines"])}],
            "action": "advise",
        }
        for c in chosen
    ]
    fids = ", ".join(c["fact_id"] for c in chosen)
    return {
        "intent": f"wants practical advice on {support['title'].lower()}",
        "support_doc_id": support["doc_id"],
        "reference_answer": f"REFERENCE for {fids}: follow {support['title']} ({snippet}) adapted to them",
        "requirements": requirements,
        "question_type": "condition_application",
    }


def _docs_plan(conditions: list[dict[str, Any]], supports: list[dict[str, Any]], n_conditions: int) -> dict[str, Any]:
    """A plan over several support documents: every requirement cites lines 1-3 of each of them."""
    plan = _plan(conditions, supports[0], n_conditions)
    del plan["support_doc_id"]
    spans = [{"doc_id": d["doc_id"], "start_line": 1, "end_line": min(3, d["n_lines"])} for d in supports]
    for requirement in plan["requirements"]:
        requirement["spans"] = spans
    return {**plan, "support_doc_ids": [d["doc_id"] for d in supports], "question_type": "multi_document"}


def _docs_builder(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    supports = view["candidates"][: view["support_docs_wanted"]]
    plan = _docs_plan(view["conditions"], supports, 1 if view.get("conditions_wanted") == "one" else 2)
    if policy.options.get("builder_names_one_support") and repairs(body) == 0:
        plan["support_doc_ids"] = plan["support_doc_ids"][:1]
    return Reply.json(plan)


def _builder(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    support = view["candidates"][0]
    plan = _plan(view["conditions"], support, 1 if view.get("conditions_wanted") == "one" else 2)
    if policy.options.get("builder_picks_exposed") and repairs(body) == 0 and view["exposed_doc_ids"]:
        plan["support_doc_id"] = view["exposed_doc_ids"][0]
    return Reply.json(plan)


def _question_writer(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    return Reply.json(
        {
            "question": f"Hi, it's {view['first_name']} again. Given what you know about me, what "
            f"should I do now? The user {view['intent']}."
        }
    )


def _blind_solver(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    if policy.options.get("blind_copies"):
        pages = view["pages"] if "pages" in view else [p for d in view["documents"] for p in d["pages"]]
        text = "\n".join(page["text"] for page in pages)
        return Reply.json({"answer": re.sub(r"(?m)^[0-9]+: ", "", text)})
    return Reply.json({"answer": "I cannot tell what applies without knowing more about you."})


def _comparator(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    needed = [r["text"].split(MUST, 1)[1] for r in view["requirements"] if MUST in r["text"]]
    if needed and all(n in view["blind_answer"] for n in needed):
        return Reply.json({"label": "answerable_without_history", "notes": "the blind answer covers everything"})
    return Reply.json({"label": "history_dependent", "notes": "the blind answer misses the user's conditions"})


def _verifier(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    return Reply.json(
        {
            "natural": True,
            "conditions_grounded": True,
            "history_alone_insufficient": True,
            "evidence_supports_answer": True,
            "safe": True,
            "problems": [],
        }
    )


def _augmenter(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    variant = view["variant"]
    single = variant in set(policy.options.get("augment_single_condition", ()))
    if variant % 2 == 1 and view["replacement_candidates"]:
        direction, support = "replace", view["replacement_candidates"][0]
    else:
        direction, support = "recombine", view["source_item"]["support"]
    plan = _plan(view["conditions"], support, 1 if single else 3)
    plan["question_type"] = "multi_condition"
    return Reply.json({"direction": direction, "plan": plan})


def _docs_augmenter(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    variant, supports = view["variant"], view["source_item"]["supports"]
    if variant % 2 == 1 and view["replacement_candidates"]:
        direction, supports = "replace", [view["replacement_candidates"][0], *supports[1:]]
    else:
        direction = "recombine"
    return Reply.json({"direction": direction, "plan": _docs_plan(view["conditions"], supports, 3)})


HANDLERS = {
    "ItemPlan": _builder,
    "WrittenQuestion": _question_writer,
    "BlindAnswer": _blind_solver,
    "GateLabel": _comparator,
    "FinalVerification": _verifier,
    "AugmentPlan": _augmenter,
    "SupportDocsPlan": _docs_builder,
    "AugmentDocsPlan": _docs_augmenter,
}
