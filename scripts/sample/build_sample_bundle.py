"""Write the profiles, facts, topics, sessions, items and document links of the sample bundle.

    PYTHONPATH=. python scripts/sample/build_sample_bundle.py [--kb ../shared/data/kb/documents.jsonl.gz]

Reads the vendored documents (samples/colabench-sample/documents.jsonl, written by build_sample_kb.py)
and the hand-written profiles in profile_*.py, resolves every quoted span to line numbers (a quote that
is not found stops the build), fills each history search with BM25 results over the sample (never a
document the profile must not see), derives each requirement's user statements from the fact
disclosures, derives the labels, writes the JSONL files, then validates the bundle with the project's
reader and cross-reference checks. With --kb it also verifies that every vendored document gives the
same document events as its raw knowledge-base record. Deterministic: same inputs, same bytes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rank_bm25 import BM25Okapi

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

from authoring import A, Item, Profile, Quote, Read, Search, U  # noqa: E402
from doc_links import DOC_LINKS  # noqa: E402
from profile_daniel import PROFILE as DANIEL  # noqa: E402
from profile_lena import PROFILE as LENA  # noqa: E402
from profile_owen import PROFILE as OWEN  # noqa: E402

from ingest.bundle.check import check_bundle  # noqa: E402
from ingest.bundle.reader import read_bundle  # noqa: E402
from ingest.chunking import chunk_document  # noqa: E402
from ingest.documents import document_events  # noqa: E402
from ingest.jsonl import open_text  # noqa: E402

OUT = REPO / "samples" / "colabench-sample"
PROFILES: list[Profile] = [DANIEL, LENA, OWEN]
TURN_STEP = timedelta(minutes=2)
LABELS = ("history_dependent", "multi_fact", "multi_session")

MANIFEST = {
    "name": "sample",
    "version": "1",
    "description": (
        "ColaBench sample: 3 synthetic profiles (a distance caregiver with chronic kidney disease, a pregnant "
        "woman with Hashimoto's thyroiditis and cystic fibrosis in her partner's family, a man newly diagnosed "
        "with hereditary hemochromatosis), their public sessions with disclosed facts and exposed documents, "
        "and history-dependent items whose support documents are new to the profile; over a vendored subset "
        "of the shared public health knowledge base (MedQuAD + OpenStax Anatomy and Physiology 2e)."
    ),
    "licence": (
        "Documents: CC BY 4.0 (MedQuAD; OpenStax Anatomy and Physiology 2e at commit "
        "b0058a743bdd2cc08196abaaa7d5469970c0d80c), selected subset, text unchanged; see ATTRIBUTION.md. "
        "Profiles, facts, topics, sessions, items and document links: synthetic, the colabench project's own "
        "work, released under the project's licence (MIT)."
    ),
    "attribution": [
        "Contains data from MedQuAD (Asma Ben Abacha and Dina Demner-Fushman, 'A Question-Entailment Approach "
        "to Question Answering', BMC Bioinformatics 20:511, 2019, https://doi.org/10.1186/s12859-019-3119-4), "
        "CC BY 4.0, https://github.com/abachaa/MedQuAD (commit 577bd37b96c0); answers whitespace-normalised and "
        "regrouped into one document per page by the shared knowledge base; this sample keeps a subset of those "
        "documents with their text unchanged. The pages were published by NIH institutes, NLM (courtesy of "
        "MedlinePlus from the National Library of Medicine), CDC and NCI.",
        "Contains text from Anatomy and Physiology 2e by J. Gordon Betts, Peter Desaix, Eddie Johnson, Jody E. "
        "Johnson, Oksana Korol, Dean Kruse, Brandon Poe, James A. Wise, Mark Womble and Kelly A. Young, "
        "OpenStax, Rice University, https://openstax.org/books/anatomy-and-physiology-2e, licensed under CC BY "
        "4.0 (github.com/openstax/osbooks-anatomy-physiology at commit b0058a743bdd2cc08196abaaa7d5469970c0d80c); "
        "text extracted from CNXML and split into sections; this sample keeps a subset of sections, text "
        "unchanged, figures not included. OpenStax does not endorse this project.",
        "The synthetic profiles, facts, topics, sessions, items, requirements and document links are original "
        "work of the colabench project; any resemblance to real people is coincidental. Not medical advice.",
    ],
}


# ---------------------------------------------------------------------------------------------- documents


class Library:
    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.records = records
        self.lines = {r["doc_id"]: r["text"].split("\n") for r in records}
        self.ambiguous: set[str] = set()
        chunks = [c for r in records for c in chunk_document(r["doc_id"], r["text"])]
        self.chunks = chunks
        titles = {r["doc_id"]: r["title"] for r in records}
        # each chunk is indexed with its document's title, as search engines usually do
        self.bm25 = BM25Okapi([tokens(titles[c.chunk_id.rsplit("#c", 1)[0]] + "\n" + c.text) for c in chunks])

    def line_of(self, doc_id: str, quote: str | int) -> int:
        if doc_id not in self.lines:
            raise SystemExit(f"unknown document {doc_id!r} (is it in sample_docs.json?)")
        if isinstance(quote, int):  # an explicit line number, for lines the page repeats verbatim
            if not 1 <= quote <= len(self.lines[doc_id]) or not self.lines[doc_id][quote - 1].strip():
                raise SystemExit(f"line {quote} of {doc_id} does not exist or is blank")
            return quote
        found = [n for n, line in enumerate(self.lines[doc_id], start=1) if quote in line]
        if not found:
            raise SystemExit(f"quote not found in {doc_id}: {quote!r}")
        if len(found) > 1:
            self.ambiguous.add(f"quote found on lines {found} of {doc_id}, make it unique: {quote!r}")
        return found[0]

    def span(self, quote: Quote) -> dict[str, Any]:
        doc_id, start = quote[0], self.line_of(quote[0], quote[1])
        end = self.line_of(doc_id, quote[2]) if len(quote) == 3 else start
        if end < start:
            raise SystemExit(f"span ends before it starts: {quote!r}")
        return {"doc_id": doc_id, "start_line": start, "end_line": end}

    def n_lines(self, doc_id: str) -> int:
        return len(self.lines[doc_id])

    def search(self, query: str, exclude: set[str], k: int) -> list[dict[str, Any]]:
        """Top documents by their best BM25 chunk; each returned as that chunk's line range."""
        scores = self.bm25.get_scores(tokens(query))
        order = sorted(range(len(self.chunks)), key=lambda i: (-scores[i], i))
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for index in order:
            chunk = self.chunks[index]
            doc_id = chunk.chunk_id.rsplit("#c", 1)[0]
            if doc_id in exclude or doc_id in seen or scores[index] <= 0:
                continue
            seen.add(doc_id)
            out.append({"doc_id": doc_id, "start_line": chunk.start_line, "end_line": chunk.end_line})
            if len(out) == k:
                break
        return out


_STOP_TEXT = (
    "a an and are as at be but by can do does for from has have how i if in is it its me my of on or "
    "so that the their there these this to was what when which who will with you your"
)
STOP = frozenset(_STOP_TEXT.split())


def tokens(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1 and w not in STOP]


# ---------------------------------------------------------------------------------------------- profiles


@dataclass
class Built:
    profiles: list[dict[str, Any]] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    topics: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def build_profile(profile: Profile, lib: Library, out: Built) -> None:
    p = profile.prefix
    fid = {f.key: f"f-{p}-{f.key}" for f in profile.facts}
    tid = {t.key: f"t-{p}-{t.key}" for t in profile.topics}
    support_all = {d for item in profile.items for d in item.support}
    hidden = support_all | set(profile.avoid)

    out.profiles.append(
        {
            "profile_id": profile.profile_id,
            "name": profile.name,
            "description": profile.description,
            "attributes": profile.attributes,
        }
    )
    for f in profile.facts:
        out.facts.append(
            {
                "fact_id": fid[f.key],
                "profile_id": profile.profile_id,
                "text": f.text,
                "private": True,
                "category": f.category,
            }
        )
    for t in profile.topics:
        out.topics.append(
            {
                "topic_id": tid[t.key],
                "profile_id": profile.profile_id,
                "title": t.title,
                "intent": t.intent,
                "fact_ids": [fid[k] for k in t.facts],
            }
        )

    disclosed_by: dict[str, list[str]] = {}  # fact id -> user turn ids
    turn_session: dict[str, str] = {}
    exposed: set[str] = set()
    last_start = ""
    for s in profile.sessions:
        session_id = f"s-{p}-{s.key}"
        if s.started_at <= last_start:
            raise SystemExit(f"{session_id}: sessions must be in increasing time order")
        last_start = s.started_at
        start = datetime.strptime(s.started_at, "%Y-%m-%dT%H:%M:%SZ")
        turns: list[dict[str, Any]] = []
        for index, turn in enumerate(s.turns):
            role = "user" if isinstance(turn, U) else "assistant"
            expected = "user" if index % 2 == 0 else "assistant"
            if role != expected:
                raise SystemExit(f"{session_id} turn {index}: turns must alternate user/assistant")
            turn_id = f"{session_id}-t{index}"
            turn_session[turn_id] = session_id
            record: dict[str, Any] = {
                "turn_id": turn_id,
                "role": role,
                "text": turn.text,
                "at": iso(start + index * TURN_STEP),
            }
            if isinstance(turn, U):
                record["disclosed_fact_ids"] = [fid[k] for k in turn.facts]
                for k in turn.facts:
                    disclosed_by.setdefault(fid[k], []).append(turn_id)
            else:
                assert isinstance(turn, A)
                calls: list[dict[str, Any]] = []
                for call in turn.calls:
                    if isinstance(call, Search):
                        pins = [lib.span(q) for q in call.pins]
                        for pin in pins:
                            if pin["doc_id"] in hidden:
                                raise SystemExit(f"{turn_id}: pinned {pin['doc_id']} must stay hidden from {p}")
                        exclude = hidden | {pin["doc_id"] for pin in pins}
                        returned = pins + lib.search(call.query, exclude, call.k - len(pins))
                        if not 3 <= len(returned) <= 5:
                            raise SystemExit(f"{turn_id}: a search returns 3-5 spans, got {len(returned)}")
                        calls.append({"tool": "search", "arguments": {"query": call.query}, "returned": returned})
                    else:
                        assert isinstance(call, Read)
                        if call.doc_id in hidden:
                            raise SystemExit(f"{turn_id}: read of {call.doc_id} must stay hidden from {p}")
                        if call.doc_id not in exposed and not any(
                            r["doc_id"] == call.doc_id for c in calls for r in c["returned"]
                        ):
                            raise SystemExit(f"{turn_id}: read {call.doc_id} before any search returned it")
                        first = lib.line_of(call.doc_id, call.quote)
                        last = min(first + call.n_lines - 1, lib.n_lines(call.doc_id))
                        calls.append(
                            {
                                "tool": "read",
                                "arguments": {"doc_id": call.doc_id, "start_line": first, "n_lines": call.n_lines},
                                "returned": [{"doc_id": call.doc_id, "start_line": first, "end_line": last}],
                            }
                        )
                    exposed.update(r["doc_id"] for r in calls[-1]["returned"])
                record["tool_calls"] = calls
            turns.append(record)
        if not 4 <= len(turns) <= 10:
            raise SystemExit(f"{session_id}: a session has 4-10 turns, got {len(turns)}")
        out.sessions.append(
            {
                "session_id": session_id,
                "profile_id": profile.profile_id,
                "topic_id": tid[s.topic],
                "started_at": s.started_at,
                "turns": turns,
            }
        )

    for item in profile.items:
        build_item(profile, item, lib, fid, disclosed_by, turn_session, exposed, last_start, out)


def build_item(
    profile: Profile,
    item: Item,
    lib: Library,
    fid: dict[str, str],
    disclosed_by: dict[str, list[str]],
    turn_session: dict[str, str],
    exposed: set[str],
    last_start: str,
    out: Built,
) -> None:
    item_id = f"i-{profile.prefix}-{item.key}"
    if item.asked_at <= last_start:
        raise SystemExit(f"{item_id}: items are asked after the profile's last session")
    if not 2 <= len(item.reqs) <= 5:
        raise SystemExit(f"{item_id}: an item has 2-5 requirements")
    for doc_id in item.support:
        if doc_id in exposed:
            raise SystemExit(f"{item_id}: support document {doc_id} was exposed in the history")
    for doc_id in item.history:
        if doc_id not in exposed:
            raise SystemExit(f"{item_id}: history document {doc_id} was never exposed")
    allowed = set(item.support) | set(item.history)
    facts_used: set[str] = set()
    turns_used: set[str] = set()
    requirements = []
    for ordinal, req in enumerate(item.reqs):
        fact_ids = [fid[k] for k in req.facts]
        turn_ids: list[str] = []
        for f in fact_ids:
            if f not in disclosed_by:
                raise SystemExit(f"{item_id}: fact {f} is never disclosed")
            turn_ids.extend(t for t in disclosed_by[f] if t not in turn_ids)
        turn_ids.extend(t for t in req.extra_turns if t not in turn_ids)
        spans = [lib.span(q) for q in req.spans]
        for sp in spans:
            if sp["doc_id"] not in allowed:
                raise SystemExit(f"{item_id}: span document {sp['doc_id']} is neither support nor history")
        facts_used.update(fact_ids)
        turns_used.update(turn_ids)
        requirements.append(
            {
                "requirement_id": f"{item_id}-r{ordinal}",
                "text": req.text,
                "turn_ids": turn_ids,
                "fact_ids": fact_ids,
                "spans": spans,
                "action": req.action,
            }
        )
    labels = ["history_dependent"]
    if len(facts_used) >= 2:
        labels.append("multi_fact")
    if len({turn_session[t] for t in turns_used}) >= 2:
        labels.append("multi_session")
    out.items.append(
        {
            "item_id": item_id,
            "profile_id": profile.profile_id,
            "question": item.question,
            "reference_answer": item.reference_answer,
            "asked_at": item.asked_at,
            "question_type": item.question_type,
            "support_doc_ids": item.support,
            "history_doc_ids": item.history,
            "batch": item.batch,
            "labels": labels,
            "requirements": requirements,
        }
    )


# ---------------------------------------------------------------------------------------------- output


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def verify_document_events(kb_path: Path, records: list[dict[str, Any]]) -> int:
    from ingest.bundle.models import DocumentRecord

    raw = {}
    with open_text(kb_path) as handle:
        for line in handle:
            d = json.loads(line)
            raw[d["doc_id"]] = d
    for record in records:
        mine = [e.payload() for e in document_events(DocumentRecord.model_validate(record).model_dump())]
        theirs = [e.payload() for e in document_events(raw[record["doc_id"]])]
        # equal as dicts and in key order (so any serialisation of the events is identical too)
        if mine != theirs or json.dumps(mine) != json.dumps(theirs):
            raise SystemExit(f"document events differ for {record['doc_id']}")
    return len(records)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--kb", type=Path, help="the shared knowledge base, to verify document events")
    args = parser.parse_args(argv)

    documents_path = args.out / "documents.jsonl"
    records = [json.loads(line) for line in documents_path.read_text(encoding="utf-8").splitlines() if line]
    lib = Library(records)
    built = Built()
    for profile in PROFILES:
        build_profile(profile, lib, built)
    if lib.ambiguous:
        raise SystemExit("\n".join(sorted(lib.ambiguous)))
    links = []
    for src, dst, description, weight in DOC_LINKS:
        for doc_id in (src, dst):
            if doc_id not in lib.lines:
                raise SystemExit(f"doc link to unknown document {doc_id}")
        links.append({"src": src, "dst": dst, "description": description, "weight": weight})

    (args.out / "bundle.json").write_text(json.dumps(MANIFEST, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    write_jsonl(args.out / "doc_links.jsonl", links)
    write_jsonl(args.out / "profiles.jsonl", built.profiles)
    write_jsonl(args.out / "facts.jsonl", built.facts)
    write_jsonl(args.out / "topics.jsonl", built.topics)
    write_jsonl(args.out / "sessions.jsonl", built.sessions)
    write_jsonl(args.out / "items.jsonl", built.items)

    bundle = read_bundle(args.out)
    report = check_bundle(bundle)
    for problem in report.problems:
        print(problem, file=sys.stderr)
    if not report.ok:
        return 1
    counts = dict(report.counts)
    counts["document_characters"] = sum(len(r["text"]) for r in records)
    counts["chunks"] = len(lib.chunks)
    counts["user_turns"] = sum(1 for s in built.sessions for t in s["turns"] if t["role"] == "user")
    for label in LABELS:
        counts[f"items_{label}"] = sum(1 for i in built.items if label in i["labels"])
    for batch in ("initial", "augmented"):
        counts[f"items_{batch}"] = sum(1 for i in built.items if i["batch"] == batch)
    if args.kb:
        counts["documents_event_checked"] = verify_document_events(args.kb, records)
    print(json.dumps(counts, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
