"""Write the tiny test fixture bundle `mini` and three deliberately broken copies of it.

    PYTHONPATH=. python scripts/sample/build_mini_bundle.py

tests/fixtures/mini_bundle/            a valid bundle: 10 short synthetic clinic leaflets, 2 profiles,
                                       3 sessions, 4 items, 3 document links (passes check_bundle)
tests/fixtures/bad_bundles/<case>/     the same bundle with one defect each, plus expected_problems.json
                                       naming the file, line and field of the located error:
    malformed_json   facts.jsonl line 2 is not valid JSON                       (read_bundle rejects)
    missing_field    items.jsonl line 1 has no `question`                        (read_bundle rejects)
    support_exposed  item i-mini-01's support document was returned by a search  (check_bundle reports)
    non_finite_numbers  doc_links.jsonl lines 2-3 weigh NaN and Infinity, a turn's metadata -Infinity
                     (read_bundle rejects: canonical JSON has no such numbers)

The leaflets are invented for tests (a fictional clinic with fictional rules); they are not medical advice.
Deterministic: same script, same bytes.
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "tests" / "fixtures" / "mini_bundle"
BAD = REPO / "tests" / "fixtures" / "bad_bundles"

NOTE = "Synthetic leaflet written for colabench tests (fictional clinic, fictional rules; not medical advice)."

# doc_id -> (title, lines). Lines are joined with "\n", so line numbers are list positions + 1.
LEAFLETS: dict[str, tuple[str, list[str]]] = {
    "mini-flu-vaccine": (
        "Riverside Clinic leaflet: seasonal flu vaccine",
        [
            "Seasonal flu vaccine at Riverside Clinic",
            "The clinic offers the flu vaccine every autumn from October.",
            "The vaccine is recommended for everyone aged 65 or over.",
            "It is also recommended for people with a long-term lung condition such as asthma.",
            "People with a severe egg allergy should ask for the egg-free vaccine.",
            "If you have a fever on the day, rebook your appointment.",
            NOTE,
        ],
    ),
    "mini-travel-vaccines": (
        "Riverside Clinic leaflet: travel vaccines",
        [
            "Travel vaccines at Riverside Clinic",
            "Book travel vaccines at least 6 weeks before you travel.",
            "Some vaccines need two doses given 4 weeks apart.",
            "Bring a list of the countries you will visit.",
            "The travel nurse will check your vaccination record.",
            NOTE,
        ],
    ),
    "mini-blood-donation": (
        "Riverside Clinic leaflet: giving blood",
        [
            "Giving blood at the Riverside donation drive",
            "Donors must be aged 18 to 70 and feel well on the day.",
            "Wait at least 12 weeks between whole-blood donations.",
            "Wait 4 months after a new tattoo or piercing before donating.",
            "Wait 7 days after finishing a course of antibiotics.",
            "Eat a meal and drink plenty of water before you donate.",
            "Bring photo identification to every donation.",
            NOTE,
        ],
    ),
    "mini-tattoo-aftercare": (
        "Riverside Clinic leaflet: tattoo aftercare",
        [
            "Caring for a new tattoo",
            "Keep the dressing on for the time your artist advises.",
            "Wash the area gently twice a day with mild soap.",
            "Do not swim or use a hot tub for 2 weeks.",
            "See the clinic if the skin becomes hot, swollen or leaks pus.",
            NOTE,
        ],
    ),
    "mini-asthma-inhalers": (
        "Riverside Clinic leaflet: asthma inhalers",
        [
            "Using your asthma inhalers",
            "A reliever inhaler (usually blue) opens the airways within minutes.",
            "A preventer inhaler is taken every day, even when you feel well.",
            "Rinse your mouth after using a preventer inhaler.",
            "If you need your reliever more than 3 times a week, book an asthma review.",
            "Always carry your reliever inhaler when you exercise.",
            NOTE,
        ],
    ),
    "mini-strength-class": (
        "Riverside Clinic leaflet: over-60s strength class",
        [
            "Over-60s strength and balance class",
            "The class runs on Monday and Thursday mornings and is free for patients aged 60 or over.",
            "Wait at least 6 weeks after surgery on a hip or knee before joining.",
            "After joint surgery, bring a note from your physiotherapist on your first visit.",
            "People with asthma should bring their reliever inhaler to every class.",
            "Wear flat shoes and bring a bottle of water.",
            NOTE,
        ],
    ),
    "mini-knee-surgery-recovery": (
        "Riverside Clinic leaflet: after knee surgery",
        [
            "Recovering after knee surgery",
            "Walk a little every day using the aids the hospital gave you.",
            "Do the exercises from your physiotherapist three times a day.",
            "Most people stop using crutches 2 to 6 weeks after surgery.",
            "Avoid kneeling and twisting movements until your physiotherapist says otherwise.",
            "Call the clinic if your calf becomes painful or swollen.",
            NOTE,
        ],
    ),
    "mini-clinic-hours": (
        "Riverside Clinic leaflet: opening hours",
        [
            "Riverside Clinic opening hours",
            "Monday to Friday 8:00 to 18:30; Saturday 9:00 to 12:00.",
            "The pharmacy counter closes 30 minutes before the clinic.",
            "Phone lines open at 8:00 for same-day appointments.",
            "Out of hours, call the regional health line.",
            NOTE,
        ],
    ),
    "mini-repeat-prescriptions": (
        "Riverside Clinic leaflet: repeat prescriptions",
        [
            "Ordering repeat prescriptions",
            "Order repeat prescriptions at least 3 working days before you run out.",
            "Inhalers and allergy tablets can be ordered online.",
            "A medication review is needed once a year for every repeat medicine.",
            "Collect your prescription from the pharmacy counter with your name and date of birth.",
            NOTE,
        ],
    ),
    "mini-allergy-testing": (
        "Riverside Clinic leaflet: allergy skin testing",
        [
            "Preparing for an allergy skin prick test",
            "Stop taking antihistamine tablets 5 days before the test.",
            "Antihistamines stop the skin from reacting and can make the result falsely negative.",
            "Keep using your asthma inhalers as normal before the test.",
            "Do not apply moisturiser to your forearms on the day of the test.",
            "The test takes about 30 minutes and results are ready the same day.",
            NOTE,
        ],
    ),
}

LINKS = [
    ("mini-tattoo-aftercare", "mini-blood-donation", "waiting time for blood donation after a new tattoo", 0.8),
    ("mini-asthma-inhalers", "mini-allergy-testing", "which medicines to keep or stop before allergy tests", 0.8),
    ("mini-knee-surgery-recovery", "mini-strength-class", "when to start a strength class after knee surgery", 0.8),
]

PROFILES = [
    {
        "profile_id": "mini-p-sam",
        "name": "Sam (synthetic)",
        "description": "Synthetic test profile: 29-year-old with asthma and hay fever who recently got a tattoo.",
        "attributes": {"synthetic": True},
    },
    {
        "profile_id": "mini-p-ravi",
        "name": "Ravi (synthetic)",
        "description": "Synthetic test profile: 64-year-old recovering from knee surgery.",
        "attributes": {"synthetic": True},
    },
]

FACTS = [
    ("mini-f-tattoo", "mini-p-sam", "Sam got a new tattoo on 1 March 2025.", "event"),
    ("mini-f-asthma", "mini-p-sam", "Sam has asthma and uses a blue reliever inhaler.", "condition"),
    ("mini-f-antihistamine", "mini-p-sam", "Sam takes an antihistamine tablet every day for hay fever.", "medication"),
    ("mini-f-knee", "mini-p-ravi", "Ravi had knee replacement surgery on 24 February 2025.", "event"),
    ("mini-f-age", "mini-p-ravi", "Ravi is 64 years old.", "demographics"),
]

TOPICS = [
    ("mini-t-skin", "mini-p-sam", "New tattoo", "Look after a new tattoo.", ["mini-f-tattoo"]),
    (
        "mini-t-breathing",
        "mini-p-sam",
        "Asthma and allergies",
        "Manage asthma and hay fever.",
        ["mini-f-asthma", "mini-f-antihistamine"],
    ),
    (
        "mini-t-knee",
        "mini-p-ravi",
        "Recovering from knee surgery",
        "Get back to normal activity.",
        ["mini-f-knee", "mini-f-age"],
    ),
]


def span(doc_id: str, start: int, end: int | None = None) -> dict[str, Any]:
    return {"doc_id": doc_id, "start_line": start, "end_line": end or start}


SESSIONS = [
    {
        "session_id": "mini-s-1",
        "profile_id": "mini-p-sam",
        "topic_id": "mini-t-skin",
        "started_at": "2025-03-03T10:00:00Z",
        "turns": [
            {
                "turn_id": "mini-s-1-t0",
                "role": "user",
                "at": "2025-03-03T10:00:00Z",
                "text": "I got my first tattoo on Saturday, 1 March. How should I look after it?",
                "disclosed_fact_ids": ["mini-f-tattoo"],
            },
            {
                "turn_id": "mini-s-1-t1",
                "role": "assistant",
                "at": "2025-03-03T10:01:00Z",
                "text": "Wash it gently twice a day with mild soap, keep the dressing on as your artist advised, and "
                "avoid swimming or hot tubs for 2 weeks. If it gets hot, swollen or leaks pus, see the clinic.",
                "tool_calls": [
                    {
                        "tool": "search",
                        "arguments": {"query": "new tattoo aftercare"},
                        "returned": [
                            span("mini-tattoo-aftercare", 1, 3),
                            span("mini-clinic-hours", 1, 2),
                            span("mini-travel-vaccines", 1, 1),
                        ],
                    },
                    {
                        "tool": "read",
                        "arguments": {"doc_id": "mini-tattoo-aftercare", "start_line": 1, "n_lines": 5},
                        "returned": [span("mini-tattoo-aftercare", 1, 5)],
                    },
                ],
            },
            {
                "turn_id": "mini-s-1-t2",
                "role": "user",
                "at": "2025-03-03T10:02:00Z",
                "text": "Thanks. I have asthma, by the way. Does that change anything?",
                "disclosed_fact_ids": ["mini-f-asthma"],
            },
            {
                "turn_id": "mini-s-1-t3",
                "role": "assistant",
                "at": "2025-03-03T10:03:00Z",
                "text": "The aftercare leaflet has nothing specific about asthma. The clinic is open on weekdays and "
                "Saturday mornings if you want the tattoo checked.",
            },
        ],
    },
    {
        "session_id": "mini-s-2",
        "profile_id": "mini-p-sam",
        "topic_id": "mini-t-breathing",
        "started_at": "2025-03-10T18:00:00Z",
        "turns": [
            {
                "turn_id": "mini-s-2-t0",
                "role": "user",
                "at": "2025-03-10T18:00:00Z",
                "text": "I have asthma and use my blue inhaler a couple of times a week. How do the inhalers differ?",
                "disclosed_fact_ids": ["mini-f-asthma"],
            },
            {
                "turn_id": "mini-s-2-t1",
                "role": "assistant",
                "at": "2025-03-10T18:01:00Z",
                "text": "The blue reliever opens your airways within minutes; a preventer is taken every day even when "
                "you feel well. Needing the reliever more than 3 times a week means you should book a review.",
                "tool_calls": [
                    {
                        "tool": "search",
                        "arguments": {"query": "asthma reliever preventer inhaler"},
                        "returned": [
                            span("mini-asthma-inhalers", 1, 3),
                            span("mini-repeat-prescriptions", 3, 3),
                            span("mini-clinic-hours", 1, 1),
                        ],
                    },
                    {
                        "tool": "read",
                        "arguments": {"doc_id": "mini-asthma-inhalers", "start_line": 1, "n_lines": 6},
                        "returned": [span("mini-asthma-inhalers", 1, 6)],
                    },
                ],
            },
            {
                "turn_id": "mini-s-2-t2",
                "role": "user",
                "at": "2025-03-10T18:02:00Z",
                "text": "I also take an antihistamine every day for hay fever. Can I order both online?",
                "disclosed_fact_ids": ["mini-f-antihistamine"],
            },
            {
                "turn_id": "mini-s-2-t3",
                "role": "assistant",
                "at": "2025-03-10T18:03:00Z",
                "text": "Yes: inhalers and allergy tablets can be ordered online, at least 3 working days before you "
                "run out.",
                "tool_calls": [
                    {
                        "tool": "read",
                        "arguments": {"doc_id": "mini-repeat-prescriptions", "start_line": 2, "n_lines": 2},
                        "returned": [span("mini-repeat-prescriptions", 2, 3)],
                    },
                ],
            },
        ],
    },
    {
        "session_id": "mini-s-3",
        "profile_id": "mini-p-ravi",
        "topic_id": "mini-t-knee",
        "started_at": "2025-03-12T09:30:00Z",
        "turns": [
            {
                "turn_id": "mini-s-3-t0",
                "role": "user",
                "at": "2025-03-12T09:30:00Z",
                "text": "I'm 64 and had my knee replaced on 24 February. When can I stop using the crutches?",
                "disclosed_fact_ids": ["mini-f-knee", "mini-f-age"],
            },
            {
                "turn_id": "mini-s-3-t1",
                "role": "assistant",
                "at": "2025-03-12T09:31:00Z",
                "text": "Most people stop using crutches 2 to 6 weeks after surgery. Keep walking a little every day "
                "and do your physiotherapy exercises three times a day.",
                "tool_calls": [
                    {
                        "tool": "search",
                        "arguments": {"query": "knee surgery recovery crutches"},
                        "returned": [
                            span("mini-knee-surgery-recovery", 1, 4),
                            span("mini-clinic-hours", 1, 1),
                            span("mini-travel-vaccines", 2, 2),
                        ],
                    },
                    {
                        "tool": "read",
                        "arguments": {"doc_id": "mini-knee-surgery-recovery", "start_line": 1, "n_lines": 6},
                        "returned": [span("mini-knee-surgery-recovery", 1, 6)],
                    },
                ],
            },
            {
                "turn_id": "mini-s-3-t2",
                "role": "user",
                "at": "2025-03-12T09:32:00Z",
                "text": "Good. I'm keen to get moving properly again.",
            },
            {
                "turn_id": "mini-s-3-t3",
                "role": "assistant",
                "at": "2025-03-12T09:33:00Z",
                "text": "Avoid kneeling and twisting until your physiotherapist says otherwise, and call the clinic if "
                "your calf becomes painful or swollen.",
            },
        ],
    },
]


def req(
    item: str, n: int, text: str, turns: list[str], facts: list[str], spans: list[dict[str, Any]], action: str
) -> dict[str, Any]:
    return {
        "requirement_id": f"{item}-r{n}",
        "text": text,
        "turn_ids": turns,
        "fact_ids": facts,
        "spans": spans,
        "action": action,
    }


ITEMS = [
    {
        "item_id": "i-mini-01",
        "profile_id": "mini-p-sam",
        "question": "Can I give blood at the clinic's donation drive this Friday?",
        "reference_answer": "Not yet. You got a new tattoo on 1 March, and the clinic asks donors "
        "to wait 4 months after a new tattoo, so you can donate from early July if you feel well and meet the other "
        "rules.",
        "asked_at": "2025-03-20T12:00:00Z",
        "question_type": "eligibility",
        "support_doc_ids": ["mini-blood-donation"],
        "history_doc_ids": ["mini-tattoo-aftercare"],
        "batch": "initial",
        "labels": ["history_dependent"],
        "requirements": [
            req(
                "i-mini-01",
                0,
                "Use the date of Sam's new tattoo (1 March 2025).",
                ["mini-s-1-t0"],
                ["mini-f-tattoo"],
                [span("mini-blood-donation", 4)],
                "Recall the tattoo date.",
            ),
            req(
                "i-mini-01",
                1,
                "Apply the 4-month wait after a new tattoo: not eligible this Friday; eligible from early July.",
                ["mini-s-1-t0"],
                ["mini-f-tattoo"],
                [span("mini-blood-donation", 4)],
                "Say no for now and give the earliest date.",
            ),
        ],
    },
    {
        "item_id": "i-mini-02",
        "profile_id": "mini-p-sam",
        "question": "I've booked an allergy skin prick test for "
        "next Thursday. Is there anything I need to do beforehand?",
        "reference_answer": "Stop your daily "
        "antihistamine 5 days before the test (from the Saturday before), because it can make the result falsely "
        "negative. Keep using your asthma inhalers as normal, and don't put moisturiser on your forearms that day.",
        "asked_at": "2025-03-20T12:30:00Z",
        "question_type": "planning",
        "support_doc_ids": ["mini-allergy-testing"],
        "history_doc_ids": ["mini-asthma-inhalers"],
        "batch": "augmented",
        "labels": ["history_dependent", "multi_fact", "multi_session"],
        "requirements": [
            req(
                "i-mini-02",
                0,
                "Stop the daily antihistamine 5 days before the test.",
                ["mini-s-2-t2"],
                ["mini-f-antihistamine"],
                [span("mini-allergy-testing", 2, 3)],
                "Tell Sam when to stop the tablets.",
            ),
            req(
                "i-mini-02",
                1,
                "Keep using the asthma inhalers as normal.",
                ["mini-s-1-t2", "mini-s-2-t0"],
                ["mini-f-asthma"],
                [span("mini-allergy-testing", 4), span("mini-asthma-inhalers", 2)],
                "Tell Sam not to stop inhalers.",
            ),
        ],
    },
    {
        "item_id": "i-mini-03",
        "profile_id": "mini-p-ravi",
        "question": "Can I join the strength class that starts on Monday 31 March?",
        "reference_answer": "Not quite yet. You're 64, so the over-60s class is free for you, but "
        "it asks people to wait at least 6 weeks after knee surgery. Your operation was on 24 February, so you can "
        "join from 7 April, bringing a note from your physiotherapist to your first class.",
        "asked_at": "2025-03-25T08:00:00Z",
        "question_type": "eligibility",
        "support_doc_ids": ["mini-strength-class"],
        "history_doc_ids": ["mini-knee-surgery-recovery"],
        "batch": "initial",
        "labels": ["history_dependent", "multi_fact"],
        "requirements": [
            req(
                "i-mini-03",
                0,
                "Ravi is 64, so he meets the 60-or-over rule.",
                ["mini-s-3-t0"],
                ["mini-f-age"],
                [span("mini-strength-class", 2)],
                "Confirm the age rule.",
            ),
            req(
                "i-mini-03",
                1,
                "Apply the 6-week wait after knee surgery (24 February): too early on 31 March, possible from 7 April.",
                ["mini-s-3-t0"],
                ["mini-f-knee"],
                [span("mini-strength-class", 3)],
                "Say he must wait and give the date.",
            ),
            req(
                "i-mini-03",
                2,
                "Bring a physiotherapist's note to the first class.",
                ["mini-s-3-t0"],
                ["mini-f-knee"],
                [span("mini-strength-class", 4)],
                "Mention the note.",
            ),
        ],
    },
    {
        "item_id": "i-mini-04",
        "profile_id": "mini-p-sam",
        "question": "Is the flu jab something I should get this autumn?",
        "reference_answer": "Yes. The clinic recommends the flu vaccine for people with a long-term lung "
        "condition such as asthma. You haven't mentioned whether you have an egg allergy: if you have a severe one, "
        "ask for the egg-free vaccine; otherwise the standard vaccine is fine.",
        "asked_at": "2025-03-21T09:00:00Z",
        "question_type": "eligibility",
        "support_doc_ids": ["mini-flu-vaccine"],
        "history_doc_ids": [],
        "batch": "initial",
        "labels": ["history_dependent", "multi_session"],
        "requirements": [
            req(
                "i-mini-04",
                0,
                "Sam has asthma, a long-term lung condition for which the vaccine is recommended.",
                ["mini-s-1-t2", "mini-s-2-t0"],
                ["mini-f-asthma"],
                [span("mini-flu-vaccine", 4)],
                "Recommend the vaccine.",
            ),
            req(
                "i-mini-04",
                1,
                "Keep the unknown egg-allergy premise conditional.",
                [],
                [],
                [span("mini-flu-vaccine", 5)],
                "Give the egg-free branch.",
            ),
        ],
    },
]


def documents() -> list[dict[str, Any]]:
    out = []
    for doc_id, (title, lines) in LEAFLETS.items():
        assert 5 <= len(lines) <= 20, doc_id
        out.append(
            {
                "doc_id": doc_id,
                "title": title,
                "text": "\n".join(lines),
                "url": None,
                "source": "colabench synthetic fixture",
                "collection": "RiversideClinic",
                "publisher": "Riverside Community Clinic (fictional)",
                "metadata": {"synthetic": True},
            }
        )
    return out


MANIFEST = {
    "name": "mini",
    "version": "1",
    "description": "Tiny synthetic ColaBench bundle for fast unit tests: 10 leaflets of a fictional clinic, 2 "
    "profiles, 3 sessions, 4 items.",
    "licence": "Synthetic test data written for the colabench project (MIT). Not medical advice.",
    "attribution": ["All content is synthetic and written for the colabench project."],
}


MINI_README = """# `mini`: a tiny synthetic ColaBench bundle for unit tests

Written by `scripts/sample/build_mini_bundle.py`, so edit that script and run it again rather than editing
these files by hand. It needs nothing outside this folder and passes `check_bundle` with no problems.

* 10 documents: leaflets from a fictional clinic, 5 to 8 lines each. They are synthetic, with invented
  rules, and are not medical advice.
* 3 document links, 2 profiles (`mini-p-sam`, `mini-p-ravi`), 5 facts and 3 topics.
* 3 sessions with 12 turns. Fact disclosures (asthma is disclosed in two sessions) and searches and reads
  that expose documents.
* 4 items and 9 requirements. `i-mini-01` (tattoo and blood donation), `i-mini-02` (allergy test: 2 facts from
  2 sessions), `i-mini-03` (strength class after knee surgery: 2 facts), and `i-mini-04` (flu vaccine, with an
  unknown egg-allergy premise). None of the support documents was exposed in its profile's history.
"""

BAD_README = """# Broken copies of the `mini` bundle

Each folder is the `mini` bundle (`../mini_bundle`) with one defect. `expected_problems.json` names the
stage that rejects it and the located problems (file, line, field) it must report. All are written by
`scripts/sample/build_mini_bundle.py`.

* `malformed_json`: line 2 of `facts.jsonl` lacks its closing brace. `read_bundle` raises `InputError`
  with `facts.jsonl:2: (json): not valid JSON ...`.
* `missing_field`: the first item has no `question`. `read_bundle` raises `InputError` with
  `items.jsonl:1: question: Field required`.
* `support_exposed`: the session-1 search also returns `mini-blood-donation`, the support document of
  `i-mini-01`. `check_bundle` reports `items.jsonl:1: support_doc_ids.0: ... already exposed ...`.
* `non_finite_numbers`: lines 2 and 3 of `doc_links.jsonl` have `"weight": NaN` and `"weight": Infinity`, and
  the first turn of session 1 has `"metadata": {"score": -Infinity}`. `read_bundle` raises `InputError` with
  `doc_links.jsonl:2: weight: NaN is not a finite number ...`, `doc_links.jsonl:3: weight: ...` and
  `sessions.jsonl:1: turns.0.metadata.score: ...`.
"""


def write_bundle(root: Path, records: dict[str, list[dict[str, Any]]], manifest: dict[str, Any]) -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / "bundle.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    for kind, rows in records.items():
        with (root / f"{kind}.jsonl").open("w", encoding="utf-8", newline="\n") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> int:
    records = {
        "documents": documents(),
        "doc_links": [{"src": s, "dst": d, "description": t, "weight": w} for s, d, t, w in LINKS],
        "profiles": PROFILES,
        "facts": [{"fact_id": f, "profile_id": p, "text": t, "private": True, "category": c} for f, p, t, c in FACTS],
        "topics": [
            {"topic_id": t, "profile_id": p, "title": ti, "intent": i, "fact_ids": fs} for t, p, ti, i, fs in TOPICS
        ],
        "sessions": SESSIONS,
        "items": ITEMS,
    }
    write_bundle(MINI, records, MANIFEST)

    # --- broken copies -------------------------------------------------------------------------------
    if BAD.exists():
        shutil.rmtree(BAD)
    cases: dict[str, dict[str, Any]] = {}

    broken = copy.deepcopy(records)
    write_bundle(BAD / "malformed_json", broken, {**MANIFEST, "name": "bad-malformed-json"})
    facts_path = BAD / "malformed_json" / "facts.jsonl"
    lines = facts_path.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].rstrip("}")  # line 2 loses its closing brace
    facts_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cases["malformed_json"] = {
        "stage": "read_bundle",
        "problems": [{"file": "facts.jsonl", "line": 2, "field": "(json)"}],
    }

    broken = copy.deepcopy(records)
    del broken["items"][0]["question"]
    write_bundle(BAD / "missing_field", broken, {**MANIFEST, "name": "bad-missing-field"})
    cases["missing_field"] = {
        "stage": "read_bundle",
        "problems": [{"file": "items.jsonl", "line": 1, "field": "question"}],
    }

    broken = copy.deepcopy(records)
    # the tattoo session's search now also returns the blood-donation leaflet, i-mini-01's support document
    broken["sessions"][0]["turns"][1]["tool_calls"][0]["returned"].append(span("mini-blood-donation", 4))
    write_bundle(BAD / "support_exposed", broken, {**MANIFEST, "name": "bad-support-exposed"})
    cases["support_exposed"] = {
        "stage": "check_bundle",
        "problems": [{"file": "items.jsonl", "line": 1, "field": "support_doc_ids.0"}],
    }

    broken = copy.deepcopy(records)
    # numbers JSON has no word for (Python's json writes them as NaN / Infinity / -Infinity)
    broken["doc_links"][1]["weight"] = float("nan")
    broken["doc_links"][2]["weight"] = float("inf")
    broken["sessions"][0]["turns"][0]["metadata"] = {"score": float("-inf")}
    write_bundle(BAD / "non_finite_numbers", broken, {**MANIFEST, "name": "bad-non-finite-numbers"})
    cases["non_finite_numbers"] = {
        "stage": "read_bundle",
        "problems": [
            {"file": "doc_links.jsonl", "line": 2, "field": "weight"},
            {"file": "doc_links.jsonl", "line": 3, "field": "weight"},
            {"file": "sessions.jsonl", "line": 1, "field": "turns.0.metadata.score"},
        ],
    }

    for case, expected in cases.items():
        (BAD / case / "expected_problems.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
    (MINI / "README.md").write_text(MINI_README, encoding="utf-8")
    (BAD / "README.md").write_text(BAD_README, encoding="utf-8")

    return verify(cases)


def verify(cases: dict[str, dict[str, Any]]) -> int:
    """The valid bundle passes; each broken copy fails with exactly the expected located problems."""
    sys.path.insert(0, str(REPO))
    from ingest.bundle.check import check_bundle
    from ingest.bundle.reader import read_bundle
    from ingest.errors import InputError

    bundle = read_bundle(MINI)
    report = check_bundle(bundle)
    assert report.ok, [str(p) for p in report.problems]
    session_of = {t.turn_id: s.record.session_id for s in bundle.sessions for t in s.record.turns}
    for loc in bundle.items:  # the declared labels are the ones the requirements imply
        item = loc.record
        facts = {f for r in item.requirements for f in r.fact_ids}
        sessions = {session_of[t] for r in item.requirements for t in r.turn_ids}
        labels = ["history_dependent"] + ["multi_fact"] * (len(facts) >= 2) + ["multi_session"] * (len(sessions) >= 2)
        assert item.labels == labels, (item.item_id, item.labels, labels)
    print(f"mini_bundle ok: {report.counts}")
    for case, expected in cases.items():
        root = BAD / case
        try:
            problems = check_bundle(read_bundle(root)).problems
            stage = "check_bundle"
        except InputError as exc:
            problems, stage = exc.problems, "read_bundle"
        got = [{"file": Path(p.file).name, "line": p.line, "field": p.field} for p in problems]
        assert stage == expected["stage"] and got == expected["problems"], (case, stage, got)
        print(
            f"{case}: {stage} -> "
            + "; ".join(f"{Path(p.file).name}:{p.line}: {p.field}: {p.message}" for p in problems)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
