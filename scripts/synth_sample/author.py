"""The scripted author of the `synth-sample` bundle: a deterministic stand-in for a capable model that writes
every synthesis role's reply from the role's own view (the JSON of its first user message) and nothing else.

It is plain templates over the documents' titles and lines: facts are "diagnosed with / treated for / a
relative with" one of the profile's documents' conditions, the Simulator discloses one fact per message, the
Assistant searches the user's message, reads the top hit and quotes its first lines, the Builder picks the
candidate whose words overlap the conditions most and cites its opening lines, the blind solver answers from
the document alone, the comparator and verifier apply simple, stated checks. No randomness: the same view
always gets the same reply, so `build.py --record` writes the same replies file each time. Its replies are
what `samples/colabench-synth-sample/replies.jsonl` holds; the pipeline, its checks and gates are the real ones.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")
_STOP = {
    "about",
    "after",
    "again",
    "their",
    "there",
    "these",
    "those",
    "which",
    "while",
    "would",
    "should",
    "could",
    "other",
    "being",
    "because",
    "where",
    "given",
    "what",
    "with",
    "have",
    "from",
    "that",
    "this",
    "your",
    "they",
    "them",
    "user",
    "into",
    "also",
    "than",
    "when",
    "some",
    "more",
    "most",
    "only",
    "very",
    "each",
    "does",
}
FIRST_NAMES = [
    "Amara",
    "Ben",
    "Carmen",
    "Dmitri",
    "Elena",
    "Farid",
    "Grace",
    "Hannah",
    "Ivan",
    "Joy",
    "Kenji",
    "Laura",
    "Marcus",
    "Nadia",
    "Oscar",
    "Priya",
    "Quinn",
    "Rosa",
    "Samuel",
    "Tara",
    "Umar",
    "Vera",
    "Wes",
    "Yara",
]
LAST_NAMES = [
    "Okafor",
    "Whitfield",
    "Ruiz",
    "Volkov",
    "Marsh",
    "Haddad",
    "Liu",
    "Berg",
    "Petrov",
    "Mensah",
    "Sato",
    "Finch",
    "Reed",
    "Rahman",
    "Lindqvist",
    "Nair",
    "Adler",
    "Delgado",
    "Ortiz",
    "Quinlan",
    "Novak",
    "Costa",
    "Hale",
]
# (fact template in the third person, category): {t} is a condition (a document title, lower-cased).
FACT_TEMPLATES = [
    ("Was diagnosed with {t} about {n} years ago and still sees a specialist for it", "health"),
    ("Has a parent living with {t} and helps with their day-to-day care", "family"),
    ("Is being treated for {t} and takes the prescribed medicine every morning", "health"),
    ("Was told at a check-up last month that the tests point to {t}", "health"),
    ("Has a teenage child who was recently diagnosed with {t}", "family"),
    ("Has had {t} since childhood and manages it mostly alone", "health"),
]
# For titles that name a treatment, test or habit rather than a condition.
CARE_TEMPLATES = [
    ("Was advised by a doctor {n} weeks ago to look into {t}", "care"),
    ("Has a parent whose doctor recommended {t} this year", "family"),
    ("Is trying to decide about {t} before an appointment next month", "care"),
]
_CARE_WORDS = re.compile(
    r"\b(medicines?|drugs?|\w*therapy|\w*therapies|treatments?|tests?|testing|surgery|transplant\w*|vaccines?|"
    r"vaccination|screening|care|diet|exercise|nutrition|supplements?|safety|use|health|products?)\b"
)
# Third-person verbs of the templates and their first/second-person forms.
_VERBS = {"sees": "see", "helps": "help", "takes": "take", "manages": "manage"}
FIRST_PERSON = {"was": "I was", "has": "I have", "is": "I am"}
QUESTION_TYPES = ["planning", "safety", "interpretation", "eligibility", "risk"]


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) >= 5 and w.lower() not in _STOP}


def _first_person(fact: str) -> str:
    head, _, rest = fact.partition(" ")
    rest = re.sub(
        r"\band (still )?(sees|helps|takes|manages)\b", lambda m: f"and {m.group(1) or ''}{_VERBS[m.group(2)]}", rest
    )
    lead = FIRST_PERSON.get(head.lower())
    return f"{lead} {rest}" if lead else f"I {fact[0].lower()}{fact[1:]}"


def _second_person(fact: str) -> str:
    text = _first_person(fact)
    for first, second in (("I was", "you were"), ("I have", "you have"), ("I am", "you are")):
        if text.startswith(first):
            return second + text[len(first) :]
    return "you " + text[2:]


def _lines(excerpt: str) -> list[tuple[int, str]]:
    """(line number, text) of a numbered excerpt ("N: text" lines), keeping lines with some words."""
    out = []
    for line in excerpt.split("\n"):
        number, sep, text = line.partition(": ")
        if sep and number.isdigit() and len(_WORD.findall(text)) >= 6 and not text.rstrip().endswith("?"):
            out.append((int(number), _sentence(text)))
    return out


def _sentence(text: str, limit: int = 220) -> str:
    text = re.sub(r"^[-*#\s]+", "", text).strip()
    cut = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return (cut if len(cut) <= limit else cut[:limit].rsplit(" ", 1)[0] + " ...").rstrip()


def _condition(title: str) -> str:
    return re.sub(r"\s*\(.*?\)\s*", " ", title).strip().lower()


def _json(value: Any) -> dict[str, Any]:
    return {"content": json.dumps(value, ensure_ascii=False)}


# --- stage 0 ---------------------------------------------------------------------------------------------------


def link_queries(view: dict[str, Any]) -> dict[str, Any]:
    title = view["seed"]["title"]
    return _json({"queries": [title, f"{_condition(title)} complications and daily life"]})


def link_pick(view: dict[str, Any]) -> dict[str, Any]:
    seed = view["seed"]
    chosen = [c for c in view["candidates"] if c["title"].lower() != seed["title"].lower()]
    chosen = chosen[: max(0, min(view["links_wanted"], 2))]
    return _json(
        {
            "links": [
                {
                    "dst_doc_id": c["doc_id"],
                    "relation": f"{seed['title']} and {c['title']}: often read together when one of them is "
                    "diagnosed, since both come up in the same care decisions",
                    "weight": 0.8 if n == 0 else 0.6,
                }
                for n, c in enumerate(chosen)
            ]
        }
    )


# --- stage I ---------------------------------------------------------------------------------------------------


def director(view: dict[str, Any]) -> dict[str, Any]:
    docs = view["documents"]
    key = "|".join(d["doc_id"] for d in docs)
    taken = {p.get("name") for p in view["existing_profiles"]}
    names = [f"{first} {last}" for first in FIRST_NAMES for last in LAST_NAMES]
    free = [n for n in names if n not in taken]
    name = free[_digest(key) % len(free)]
    facts = []
    for i, d in enumerate(docs[:6]):
        condition = _condition(d["title"])
        templates = CARE_TEMPLATES if _CARE_WORDS.search(condition) else FACT_TEMPLATES
        for j in range(2):
            template, category = templates[(_digest(d["doc_id"]) + 3 * j + i) % len(templates)]
            text = template.format(t=condition, n=2 + (_digest(d["doc_id"]) + j) % 9)
            facts.append(
                {"key": f"f{len(facts) + 1}", "text": text, "category": category, "source_doc_id": d["doc_id"]}
            )
    topics = []
    for j in range(view["topics_wanted"]):
        first, second = facts[j % len(facts)], facts[(j + 1) % len(facts)]
        doc = next(d for d in docs if d["doc_id"] == first["source_doc_id"])
        topics.append(
            {
                "key": f"t{j + 1}",
                "title": f"{doc['title']}: what it means day to day"
                if j % 2 == 0
                else f"Planning around {doc['title']}",
                "intent": f"understand what {_condition(doc['title'])} means for everyday plans and what to ask next",
                "fact_keys": [first["key"], second["key"]],
            }
        )
    age = 30 + _digest(key) % 50
    return _json(
        {
            "name": name,
            "description": f"{name.split()[0]}, {age}, looks for practical health information for themself "
            "and their family.",
            "attributes": {"age": age, "first_name": name.split()[0]},
            "facts": facts,
            "topics": topics,
        }
    )


def profile_review(view: dict[str, Any]) -> dict[str, Any]:
    docs = {d["doc_id"] for d in view["documents"]}
    draft = view["draft"]
    problems = [
        f"fact {f['key']} is not grounded in an offered document"
        for f in draft["facts"]
        if f["source_doc_id"] not in docs
    ]
    keys = {f["key"] for f in draft["facts"]}
    problems += [f"topic {t['key']} names an unknown fact" for t in draft["topics"] if set(t["fact_keys"]) - keys]
    return _json({"verdict": "revise" if problems else "accept", "problems": problems})


# --- stage II --------------------------------------------------------------------------------------------------


def simulator(view: dict[str, Any]) -> dict[str, Any]:
    topic = view["topic"]
    facts = {f["fact_id"]: f for f in view["profile"]["facts"]}
    dialogue = view["dialogue"]
    left = [f for f in topic["fact_ids"] if f not in view["disclosed_so_far"] and f in facts]
    if not dialogue:
        first = left[:1]
        told = f" {_first_person(facts[first[0]]['text'])}." if first else ""
        text = f"Hi! I'm trying to {topic['intent']}.{told} Where should I start?"
        return _json({"text": text, "disclosed_fact_ids": first, "action": "continue"})
    if not left or view["user_turns_left"] <= 0:
        return _json({"text": "", "disclosed_fact_ids": [], "action": "end"})
    named = re.search(r'I looked at "([^"]+)"', dialogue[-1]["text"])
    heard = f"Thanks, the part from {named.group(1)} helps." if named else "Okay, I'll ask my care team then."
    text = f"{heard} One more thing: {_first_person(facts[left[0]]['text'])}. Does that change anything?"
    return _json({"text": text, "disclosed_fact_ids": left[:1], "action": "continue"})


def disclosure_check(view: dict[str, Any]) -> dict[str, Any]:
    said = _words(view["turn_text"])
    checks = []
    for fact in view["declared"]:
        words = _words(fact["text"])
        hits = sorted(words & said)
        ok = bool(words) and len(hits) * 3 >= len(words) * 2
        checks.append({"fact_id": fact["fact_id"], "confirmed": ok, "evidence": " ".join(hits) if ok else ""})
    return _json({"checks": checks})


def _tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for message in body.get("messages", []):
        if message.get("role") == "tool":
            try:
                value = json.loads(message.get("content") or "{}")
            except json.JSONDecodeError:
                value = {}
            out.append(value if isinstance(value, dict) else {})
    return out


def _call(body: dict[str, Any], name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    serial = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    return {
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{serial}_0",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


def _assistant_answer(body: dict[str, Any]) -> dict[str, Any]:
    read = next((r for r in reversed(_tool_results(body)) if "start_line" in r), None)
    if read is None:
        return {
            "content": "Thanks for telling me. I could not find a source on that; please check with your care team."
        }
    said = [t for _, t in _lines(str(read.get("text") or ""))][:2]
    quoted = " ".join(s if s.endswith((".", "!", "?", "...")) else s + "." for s in said)
    return {
        "content": f'I looked at "{read.get("title")}". It says: {quoted} How this applies to you depends on '
        "what you have told me, so it is worth raising it with your care team."
    }


def assistant(view: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    results = _tool_results(body)
    if not results:
        question = view["dialogue"][-1]["text"]
        return _call(body, "kb_search", {"query": question[:300], "k": 3})
    last = results[-1]
    if "start_line" not in last and last.get("documents"):
        return _call(body, "read", {"doc_id": last["documents"][0]["doc_id"], "start_line": 1, "n_lines": 12})
    return _assistant_answer(body)


# --- stage III and augmentation --------------------------------------------------------------------------------


def _overlap(doc: dict[str, Any], conditions: list[dict[str, Any]]) -> int:
    text = _words(doc["title"] + " " + doc["excerpt"])
    return sum(len(_words(c["text"]) & text) for c in conditions)


def _ranked_conditions(conditions: list[dict[str, Any]], support: dict[str, Any]) -> list[dict[str, Any]]:
    words = _words(support["title"] + " " + support["excerpt"])
    return sorted(conditions, key=lambda c: (-len(_words(c["text"]) & words), c["fact_id"]))


def _plan(support: dict[str, Any], chosen: list[dict[str, Any]], question_type: str) -> dict[str, Any]:
    lines = _lines(support["excerpt"]) or [(1, support["title"])]
    key_lines = lines[:3]
    last = key_lines[-1][0]
    requirements = []
    for n, c in enumerate(chosen):
        number, text = key_lines[n % len(key_lines)]
        fact = f"{c['text'][0].lower()}{c['text'][1:]}"
        requirements.append(
            {
                "text": f"Takes into account that the user {fact}: {_sentence(text, 300)}",
                "fact_ids": [c["fact_id"]],
                "turn_ids": [c["disclosed_in"][0]["turn_id"]],
                "spans": [
                    {"doc_id": support["doc_id"], "start_line": number, "end_line": min(number + 1, support["n_lines"])}
                ],
                "action": "advise",
            }
        )
    requirements.append(
        {
            "text": f"States what {support['title']} says first: {_sentence(key_lines[0][1], 300)}",
            "fact_ids": [],
            "turn_ids": [],
            "spans": [{"doc_id": support["doc_id"], "start_line": key_lines[0][0], "end_line": last}],
            "action": "inform",
        }
    )
    because = "; ".join(_second_person(c["text"]) for c in chosen)
    said = " ".join(t if t.endswith((".", "!", "?", "...")) else f"{t}." for _, t in key_lines[:2])
    return {
        "intent": f"wants to know what {support['title']} means for them",
        "support_doc_id": support["doc_id"],
        "reference_answer": f"Because {because}, the relevant points of {support['title']} are: {said} "
        "Discuss with your care team how this fits your situation.",
        "requirements": requirements,
        "question_type": question_type,
    }


def builder(view: dict[str, Any]) -> dict[str, Any]:
    conditions = view["conditions"]
    support = max(view["candidates"], key=lambda d: (_overlap(d, conditions), -view["candidates"].index(d)))
    wanted = 1 if view.get("conditions_wanted") == "one" else 2
    chosen = _ranked_conditions(conditions, support)[:wanted]
    kind = QUESTION_TYPES[_digest(support["doc_id"] + view["topic_title"]) % len(QUESTION_TYPES)]
    return _json(_plan(support, chosen, kind))


def question_writer(view: dict[str, Any]) -> dict[str, Any]:
    match = re.match(r"wants to know what (.+) means for them$", view["intent"])
    subject = match.group(1) if match else "this"
    openers = [
        f"Hi, it's {view['first_name']} again. I keep seeing things about {subject}. What should I keep in mind, "
        "with everything going on for me?",
        f"{view['first_name']} here. Is there anything about {subject} that I personally should watch out for?",
        f"Quick one from {view['first_name']}: does {subject} change anything for me or my family?",
    ]
    return _json({"question": openers[_digest(view["intent"]) % len(openers)]})


def blind_solver(view: dict[str, Any]) -> dict[str, Any]:
    text = "\n".join(page["text"] for page in view["pages"])
    said = [t for _, t in _lines(text)][:2]
    return _json(
        {
            "answer": f'From "{view["document_title"]}" alone: {" ".join(said)} I do not know your own situation, '
            "so I cannot tell which of this applies to you."
        }
    )


def comparator(view: dict[str, Any]) -> dict[str, Any]:
    answer = _words(view["blind_answer"])
    personal = [r["text"].split(": ", 1)[0] for r in view["requirements"] if r["text"].startswith("Takes into account")]
    missed = [p for p in personal if len(_words(p) & answer) * 2 < len(_words(p))]
    if personal and not missed:
        return _json(
            {"label": "answerable_without_history", "notes": "the blind answer covers every personal condition"}
        )
    return _json(
        {
            "label": "history_dependent",
            "notes": f"the blind answer misses {len(missed)} of {len(personal)} personal condition(s)",
        }
    )


def verifier(view: dict[str, Any]) -> dict[str, Any]:
    checks = {
        "natural": len(view["question"].split()) >= 6,
        "conditions_grounded": all(r["source_turns"] for r in view["requirements"] if r["conditions"]),
        "history_alone_insufficient": view["history_gate_label"] == "history_dependent",
        "evidence_supports_answer": any(r["evidence"] for r in view["requirements"]),
        "safe": "care team" in view["reference_answer"],
    }
    return _json({**checks, "problems": [f"{k} does not hold" for k, ok in checks.items() if not ok]})


def augmenter(view: dict[str, Any]) -> dict[str, Any]:
    source = view["source_item"]
    used = {f for r in source["requirements"] for f in r["fact_ids"]}
    if view["variant"] % 2 == 1 and view["replacement_candidates"]:
        direction, support = "replace", view["replacement_candidates"][0]
    else:
        direction, support = "recombine", source["support"]
    ranked = _ranked_conditions(view["conditions"], support)
    chosen = [c for c in ranked if c["fact_id"] in used] + [c for c in ranked if c["fact_id"] not in used]
    want = max(view.get("min_conditions", 2), min(3, len(used) + 1))
    return _json({"direction": direction, "plan": _plan(support, chosen[:want], "multi_condition")})


ROLES = {
    "LinkQueries": link_queries,
    "LinkProposals": link_pick,
    "ProfileDraft": director,
    "ProfileReview": profile_review,
    "SimulatorTurn": simulator,
    "DisclosureChecks": disclosure_check,
    "ItemPlan": builder,
    "WrittenQuestion": question_writer,
    "BlindAnswer": blind_solver,
    "GateLabel": comparator,
    "FinalVerification": verifier,
    "AugmentPlan": augmenter,
}


def first_user_json(body: dict[str, Any]) -> dict[str, Any]:
    for message in body.get("messages", []):
        if message.get("role") == "user":
            try:
                value = json.loads(str(message.get("content") or ""))
            except json.JSONDecodeError:
                return {}
            return value if isinstance(value, dict) else {}
    return {}


def author(body: dict[str, Any]) -> dict[str, Any] | None:
    """The reply message to one synthesis request (None for a request no role here answers)."""
    from agents.synthesis.replay import request_role

    role = request_role(body)
    view = first_user_json(body)
    if role == "assistant":
        return assistant(view, body)
    if role == "plain":
        return _assistant_answer(body) if set(view) == {"dialogue"} else None
    handler = ROLES.get(role)
    return handler(view) if handler is not None else None
