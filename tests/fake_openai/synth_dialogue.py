"""Scripted stage II replies for SynthesisPolicy: the user Simulator, the disclosure checker and the Assistant.

Simulator: the first message states the topic's intent and reveals its first fact (paraphrased: the fact's
words without punctuation); each later message quotes the start of the assistant's last reply (a follow-up,
"continue") and reveals the next undisclosed fact of the topic; with no fact left it ends. Options:
`invalid_simulator_topics` (topics, named by their fact ids, whose simulator, from its second message on,
always declares an unknown fact id).
Disclosure checker: a fact is confirmed when most of its longer words are in the message; option
`deny_fact_suffixes` (fact ids ending so are never confirmed).
Assistant (tool requests): searches the last user message, then reads lines 1-3 of the first result, then
answers; its answers name document ids only (never their text). The final request without tools ("plain")
answers the same way."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.fake_openai.server import Reply

_WORD = re.compile(r"[A-Za-z0-9-]+")


def _paraphrase(text: str) -> str:
    return " ".join(_WORD.findall(text)).lower()


def _simulator(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    topic = view["topic"]
    facts = {f["fact_id"]: f for f in view["profile"]["facts"]}
    dialogue = view["dialogue"]
    invalid = [sorted(ids) for ids in policy.options.get("invalid_simulator_topics", ())]
    if dialogue and sorted(topic["fact_ids"]) in invalid:
        return Reply.json({"text": "hello", "disclosed_fact_ids": ["no-such-fact"], "action": "continue"})
    left = [f for f in topic["fact_ids"] if f not in view["disclosed_so_far"] and f in facts]
    if not dialogue:
        first = left[:1]
        text = (
            f"Hi, I would like to {topic['intent']}. For context: {_paraphrase(facts[first[0]]['text'])}."
            if first
            else f"Hi, I would like to {topic['intent']}."
        )
        return Reply.json({"text": text, "disclosed_fact_ids": first, "action": "continue"})
    if not left or view["user_turns_left"] <= 0:
        return Reply.json({"text": "", "disclosed_fact_ids": [], "action": "end"})
    said = " ".join(dialogue[-1]["text"].split()[:5])
    return Reply.json(
        {
            "text": f'You said "{said}", so what about this: {_paraphrase(facts[left[0]]["text"])}?',
            "disclosed_fact_ids": left[:1],
            "action": "continue",
        }
    )


def _disclosure_check(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    text = view["turn_text"].lower()
    deny = tuple(policy.options.get("deny_fact_suffixes", ()))
    checks = []
    for fact in view["declared"]:
        words = [w for w in _WORD.findall(fact["text"].lower()) if len(w) >= 5]
        hits = [w for w in words if w in text]
        ok = bool(words) and len(hits) * 2 >= len(words) and not (deny and fact["fact_id"].endswith(deny))
        checks.append({"fact_id": fact["fact_id"], "confirmed": ok, "evidence": " ".join(hits) if ok else ""})
    return Reply.json({"checks": checks})


def _tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for message in body.get("messages", []):
        if message.get("role") == "tool":
            try:
                out.append(json.loads(message.get("content") or "{}"))
            except json.JSONDecodeError:
                out.append({})
    return out


def _answer(body: dict[str, Any]) -> Reply:
    seen: list[str] = []
    for result in _tool_results(body):
        for doc in result.get("documents", []):
            seen.append(doc["doc_id"])
        if "start_line" in result:
            seen.append(result["doc_id"])
    ids = sorted(set(seen))
    if not ids:
        return Reply.text("Thanks for telling me. In general, go step by step and check with your care team.")
    return Reply.text(
        f"Thanks for telling me. I checked {len(ids)} source(s) ({', '.join(ids)}); in your case, "
        "go step by step and check with your care team."
    )


def _assistant(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    results = _tool_results(body)
    if not results:
        question = view["dialogue"][-1]["text"]
        return Reply.tools(("kb_search", {"query": question[:200], "k": 3}))
    if len(results) == 1 and results[0].get("documents"):
        return Reply.tools(("read", {"doc_id": results[0]["documents"][0]["doc_id"], "start_line": 1, "n_lines": 3}))
    return _answer(body)


def _plain(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    if set(view) != {"dialogue"}:
        raise KeyError("no synthesis handler for a plain request that is not the stage II Assistant's final answer")
    return _answer(body)


HANDLERS = {
    "SimulatorTurn": _simulator,
    "DisclosureChecks": _disclosure_check,
    "assistant": _assistant,
    "plain": _plain,
}
