"""Select the vendored knowledge-base subset of the sample bundle (deterministic).

    PYTHONPATH=. python scripts/sample/build_sample_kb.py ../shared/data/kb/documents.jsonl.gz \
        [--out samples/colabench-sample/documents.jsonl]

The subset is the union of
  1. the hand-chosen documents in `sample_docs.json` (every document the synthetic histories and items
     cite, plus hand-picked neighbours of each support document),
  2. for every hand-chosen OpenStax section, the other sections of the same textbook chapter (the
     anatomy and physiology around it),
  3. for every hand-chosen MedQuAD page, up to TITLE_NEIGHBOURS other MedQuAD pages of at most
     NEIGHBOUR_MAX_CHARS characters whose title shares a content word with it (same condition in
     another collection, related conditions); ranked by shared words, then shorter first, then doc_id,
  4. every MedlinePlus Health Topics summary (short pages on all common topics: the general background
     and the bulk of the distractors).
Documents keep the knowledge base's order. Text and fields are copied verbatim; the record's other
fields go to `metadata` (nulls dropped), exactly as `ingest.documents.document_events` reads a raw
knowledge-base record, so the sample and the full knowledge base give identical document events.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_OUT = REPO / "samples" / "colabench-sample" / "documents.jsonl"
CORE_FIELDS = ("doc_id", "title", "text", "url", "source", "collection", "publisher")

TITLE_NEIGHBOURS = 6
NEIGHBOUR_MAX_CHARS = 12_000
MAX_DOCUMENTS = 1_500
MAX_TOTAL_CHARS = 2_600_000
BACKGROUND_COLLECTIONS = ("MPlusHealthTopics",)

_STOPWORDS_TEXT = (
    "about acute adult adults after also and associated autosomal care causes child children chronic "
    "condition conditions congenital continuing control deficiency disease diseases disorder "
    "disorders dominant early familial family form from have health healthy hereditary human "
    "infection information juvenile keep know known late learning life living mental need neonatal "
    "nonsyndromic older onset other over parasites people prevent problems recessive related "
    "retardation right syndrome that their these this treated treatment type types what when with "
    "your"
)
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def read_kb(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def to_bundle_record(raw: dict[str, Any]) -> dict[str, Any]:
    """The bundle DocumentRecord of a raw knowledge-base record (other non-null fields -> metadata)."""
    record = {name: raw.get(name) for name in CORE_FIELDS}
    record["metadata"] = {k: v for k, v in raw.items() if k not in CORE_FIELDS and v is not None}
    return record


def title_terms(title: str) -> set[str]:
    words = re.findall(r"[a-z]+", title.lower().replace("'s", ""))
    return {w for w in words if len(w) >= 4 and w not in STOPWORDS}


def hand_chosen(spec_path: Path) -> list[str]:
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    out: list[str] = []
    for key, groups in spec.items():
        if key.startswith("_"):
            continue
        for ids in groups.values():
            out.extend(i for i in ids if i not in out)
    return out


def select(docs: list[dict[str, Any]], chosen: Iterable[str]) -> tuple[set[str], dict[str, str]]:
    by_id = {d["doc_id"]: d for d in docs}
    why: dict[str, str] = {}

    def add(doc_id: str, reason: str) -> None:
        why.setdefault(doc_id, reason)

    chosen = list(chosen)
    missing = [i for i in chosen if i not in by_id]
    if missing:
        raise SystemExit(f"hand-chosen ids not in the knowledge base: {missing}")
    for doc_id in chosen:
        add(doc_id, "hand-chosen")
    # 2. the other sections of each hand-chosen OpenStax chapter
    chapters = {by_id[i]["category"] for i in chosen if by_id[i]["collection"] == "OpenStax-AP2e"}
    for d in docs:
        if d["collection"] == "OpenStax-AP2e" and d["category"] in chapters:
            add(d["doc_id"], f"same OpenStax chapter ({d['category']})")
    # 3. title-term neighbours of each hand-chosen MedQuAD page
    medquad = [d for d in docs if d["source"] == "MedQuAD"]
    for doc_id in chosen:
        core = by_id[doc_id]
        if core["source"] != "MedQuAD":
            continue
        terms = title_terms(core["title"])
        if not terms:
            continue
        ranked = sorted(
            (-len(terms & title_terms(d["title"])), len(d["text"]), d["doc_id"])
            for d in medquad
            if d["doc_id"] != doc_id and len(d["text"]) <= NEIGHBOUR_MAX_CHARS and terms & title_terms(d["title"])
        )
        for _, _, other in ranked[:TITLE_NEIGHBOURS]:
            add(other, f"title neighbour of {doc_id}")
    # 4. background
    for d in docs:
        if d["collection"] in BACKGROUND_COLLECTIONS:
            add(d["doc_id"], f"background ({d['collection']})")
    return set(why), why


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kb", type=Path, help="the shared knowledge base documents.jsonl[.gz]")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--spec", type=Path, default=HERE / "sample_docs.json")
    args = parser.parse_args(argv)

    docs = read_kb(args.kb)
    selected, why = select(docs, hand_chosen(args.spec))
    records = [to_bundle_record(d) for d in docs if d["doc_id"] in selected]
    total = sum(len(r["text"]) for r in records)
    if len(records) > MAX_DOCUMENTS or total > MAX_TOTAL_CHARS:
        raise SystemExit(f"subset too large: {len(records)} documents, {total:,} characters")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    reasons: dict[str, int] = {}
    for doc_id in selected:
        kind = why[doc_id].split(" of ")[0].split(" (")[0]
        reasons[kind] = reasons.get(kind, 0) + 1
    print(f"wrote {args.out}: {len(records)} documents, {total:,} characters", file=sys.stderr)
    for kind, count in sorted(reasons.items()):
        print(f"  {kind}: {count}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
