"""Evaluation datasets: ingest a dataset if the graph lacks it (idempotent), then read each item's gold.

Gold is read by the evaluator only; methods never see it. Per dataset:

- bundle: knowledge gold = the item's support documents (corpus: the bundle's own documents); memory gold
  = the user turns its requirements quote (STATED_IN) and their sessions.
- longmemeval: memory gold as LongMemEval's retrieval scripts define it: the has_answer turns of the answer
  sessions; the user ones are the turn-level gold (turn cards are user turns) and their sessions the
  session gold; every has_answer turn (assistant ones too) makes its round gold at round granularity.
  Abstention items are skipped, as the official metrics skip them; items whose evidence lies only in
  assistant turns are skipped at the turn and session levels only (scored at round granularity).
- locomo: both speakers are people, so every evidence turn of the question is memory evidence (turn cards
  are made from both speakers' turns); gold sessions = the sessions of the evidence turns. A note counts the
  questions whose evidence includes a first-speaker turn (the turn-level count when only the first
  speaker's turns were memory evidence).
- ikat: knowledge gold = the provenance passages (corpus: the passages of the loaded topic files); memory
  gold = the relevant PTKB statements (NIST/organiser qrels grades when the turn was judged, else the
  topic file's ptkb_provenance), ranked among the cards visible before the asked turn.
- medquad: each QA question of the knowledge base's qa.jsonl.gz -> its document (corpus: the knowledge
  base's documents); no profile, so memory recipes have no knowledge line here.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from graph.cypher_files import load_cypher
from graph.events import DocumentIngested, ItemCreated
from graph.hashing import text_sha256
from graph.store import EventStore
from ingest.adapters import AdapterResult
from ingest.errors import InputError, Problem
from ingest.pipeline import load_input, write_events
from query.corpus import Corpus

DATASETS = ("bundle", "longmemeval", "locomo", "ikat", "medquad")
# qrels files in the iKAT item metadata, most authoritative first.
IKAT_QRELS = ("ptkb_rel_nist", "ptkb_rel_org")


class EvalItem(BaseModel):
    """One evaluation item and its gold (never passed to a retriever)."""

    item_id: str
    dataset: str
    group: str = ""  # what summaries are grouped by (the dataset, or the whole input for iKAT)
    type: str
    question: str
    profile_id: str | None = None
    cutoff_turn_id: str | None = None
    gold_docs: list[str] = Field(default_factory=list)
    gold_turns: list[str] = Field(default_factory=list)  # memory-evidence turns (turn-card gold)
    evidence_turns: list[str] = Field(default_factory=list)  # every gold turn, of either role (round gold)
    turn_sessions: dict[str, str] = Field(default_factory=dict)  # gold turn -> its session
    gold_sessions: list[str] = Field(default_factory=list)
    ptkb_grades: dict[str, float] | None = None
    relevance_source: str | None = None
    skip_knowledge: str | None = None
    skip_memory: str | None = None  # every memory level


class PreparedDataset(BaseModel):
    """A dataset in the graph, ready to evaluate."""

    kind: str
    path: str
    name: str
    corpus: Corpus | None
    items: list[EvalItem]
    has_knowledge: bool
    has_memory: bool
    ingest: dict[str, int] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    @property
    def profile_ids(self) -> list[str]:
        return sorted({item.profile_id for item in self.items if item.profile_id})


Progress = Callable[[str, int, int], None]


def prepare_dataset(
    store: EventStore,
    kind: str,
    path: Path,
    *,
    limit: int | None = None,
    progress: Progress | None = None,
    variant: str | None = None,
    caption: str | None = None,
) -> PreparedDataset:
    """Ingest `path` as `kind` if needed and collect its evaluation items (at most `limit`, chosen by the
    hash of their ids so the subset is stable). `variant` (s, m, oracle) names the LongMemEval variant of a
    file whose name does not tell it; `caption` (bare, bracketed) how LoCoMo's image captions join the turn
    text (ingest.adapters.locomo). Raises InputError for an unknown kind, a bad path or a variant or caption
    given for another dataset."""
    if kind not in DATASETS:
        raise InputError([Problem(str(path), None, "--dataset", f"unknown dataset {kind!r}; one of {DATASETS}")])
    if kind == "medquad":
        return _prepare_medquad(store, path, limit, progress)
    if variant is not None and kind != "longmemeval":
        raise InputError([Problem(str(path), None, "--variant", "only LongMemEval files have a variant")])
    if kind == "longmemeval":
        from ingest.adapters.longmemeval import load_longmemeval

        if not path.exists():
            raise InputError([Problem(str(path), None, "path", "does not exist")])
        result = load_longmemeval(path, variant)
    elif caption is not None and kind != "locomo":
        raise InputError([Problem(str(path), None, "--locomo-caption", "only LoCoMo has image captions")])
    elif kind == "locomo" and caption is not None:
        from ingest.adapters.locomo import load_locomo

        if not path.is_file():
            raise InputError([Problem(str(path), None, "path", "expected the locomo10.json file")])
        result = load_locomo(path, caption)
    else:
        result = load_input(path, kind)  # the other dataset kinds are ingest formats of the same name
    report = _ingest(store, result, progress)
    item_ids = [e.event.item_id for e in result.events if isinstance(e.event, ItemCreated)]
    doc_ids = [e.event.doc_id for e in result.events if isinstance(e.event, DocumentIngested)]
    item_ids = _subset(item_ids, limit)
    rows = _gold_rows(store, item_ids)
    corpus: Corpus | None = None
    if kind in ("bundle", "ikat") and doc_ids:
        corpus = Corpus(doc_ids=tuple(doc_ids), label=f"the {len(doc_ids):,} documents of {path.name}")
    items = [_item(kind, row) for row in rows]
    for item in items:
        # iKAT's topic sets are its question types (one table); LongMemEval's S and oracle stay apart.
        item.group = result.dataset if kind == "ikat" else item.dataset
    notes: list[str] = []
    if kind == "ikat" and not doc_ids:
        notes.append("no passage texts in this iKAT input (only 2023 ships them): no knowledge line")
    if kind == "locomo":
        # the form the adapter used (the graph holds it: write_events refuses the other one)
        notes.append(_locomo_note(rows, items))
        notes.append(
            f"LoCoMo image turns: caption format {result.settings['locomo_caption']} "
            f"({result.counts.get('captioned_turns', 0):,} captioned turns)"
        )
    return PreparedDataset(
        kind=kind,
        path=str(path),
        name=result.dataset,
        corpus=corpus,
        items=items,
        has_knowledge=corpus is not None,
        has_memory=True,
        ingest=report,
        notes=notes,
    )


def _ingest(store: EventStore, result: AdapterResult, progress: Progress | None) -> dict[str, int]:
    def on_progress(phase: str, done: int, total: int) -> None:
        if progress:
            progress("ingest", done, total)

    report = write_events(store, result, progress=on_progress)
    return {"events_appended": report.appended, "events_already_in_graph": report.skipped}


def _subset(ids: list[str], limit: int | None) -> list[str]:
    if limit is None or limit >= len(ids):
        return ids
    ranked = sorted(ids, key=text_sha256)
    keep = set(ranked[:limit])
    return [i for i in ids if i in keep]


def _gold_rows(store: EventStore, item_ids: list[str]) -> list[dict[str, Any]]:
    with store.driver.session(database=store.database) as session:
        rows = [dict(r) for r in session.run(load_cypher("query/eval_items"), item_ids=item_ids)]
    order = {iid: n for n, iid in enumerate(item_ids)}
    return sorted(rows, key=lambda r: order[r["item_id"]])


def _item(kind: str, row: dict[str, Any]) -> EvalItem:
    metadata = json.loads(row["metadata"]) if row["metadata"] else {}
    turns = [t for t in row["turns"] if t and t.get("turn_id")]
    if kind == "longmemeval":
        # The reference's gold ids are the has_answer turns of answer sessions only.
        answer = {f"{row['profile_id']}:{s}" for s in metadata.get("answer_session_ids") or []}
        turns = [t for t in turns if str(t["session_id"]).split("@")[0] in answer]
    user_turns = [t["turn_id"] for t in turns if t["role"] == "user"]
    item = EvalItem(
        item_id=row["item_id"],
        dataset=row["dataset"],
        type=row["question_type"] or row["dataset"],
        question=row["question"],
        profile_id=row["profile_id"],
        gold_docs=list(row["support_doc_ids"]),
        gold_turns=user_turns,
        evidence_turns=[t["turn_id"] for t in turns],
        turn_sessions={t["turn_id"]: t["session_id"] for t in turns},
    )
    if kind == "bundle":
        item.gold_sessions = list(dict.fromkeys(t["session_id"] for t in turns if t["role"] == "user"))
        if not item.gold_docs:
            item.skip_knowledge = "no support document"
        if not user_turns:
            item.skip_memory = "no user statement among the requirements"
    elif kind == "longmemeval":
        item.skip_knowledge = "no knowledge base"
        item.gold_sessions = list(dict.fromkeys(t["session_id"] for t in turns if t["role"] == "user"))
        if "abstention" in row["labels"]:
            item.skip_memory = "abstention question (no evidence; LongMemEval skips it)"
        elif not turns:
            item.skip_memory = "no has_answer turn in the answer sessions"
    elif kind == "locomo":
        item.skip_knowledge = "no knowledge base"
        item.type = str(metadata.get("category_name") or row["question_type"] or "locomo")
        item.gold_sessions = list(dict.fromkeys(t["session_id"] for t in turns))
        # Both speakers are people: the second speaker's (assistant-role) turns are memory evidence too.
        item.gold_turns = [t["turn_id"] for t in turns]
        if not turns:
            item.skip_memory = "no evidence turn"
    elif kind == "ikat":
        item.type = row["dataset"]
        item.cutoff_turn_id = metadata.get("asked_after_turn_id")
        if not item.gold_docs:
            item.skip_knowledge = "no provenance passage with text"
        prefix = f"{row['profile_id']}:ptkb:"
        grades: dict[str, float] | None = None
        for name in IKAT_QRELS:
            judged = metadata.get(name)
            if isinstance(judged, dict) and judged:
                grades = {f"{prefix}{ptkb}": float(grade) for ptkb, grade in judged.items()}
                item.relevance_source = name
                break
        if grades is None:
            grades = {turn: 1.0 for turn in user_turns}
            item.relevance_source = "ptkb_provenance"
        item.ptkb_grades = grades
        item.gold_turns = sorted(t for t, g in grades.items() if g > 0)
        if not item.gold_turns:
            item.skip_memory = "no relevant PTKB statement"
    return item


def _locomo_note(rows: list[dict[str, Any]], items: list[EvalItem]) -> str:
    """How many questions are scored now that both speakers are memory evidence, and how many had a
    first-speaker evidence turn (all that the turn level could score when only those were evidence)."""
    with_evidence = [i for i in items if i.skip_memory is None]
    first_speaker = sum(1 for r in rows if any(t and t.get("role") == "user" for t in r["turns"]))
    return (
        f"LoCoMo: {len(with_evidence):,} of {len(items):,} questions have evidence turns and are scored at every "
        f"level (both speakers' turns are memory evidence); {first_speaker:,} of them have a first-speaker "
        "evidence turn (the turn-level count when only the first speaker was)"
    )


def _prepare_medquad(store: EventStore, path: Path, limit: int | None, progress: Progress | None) -> PreparedDataset:
    folder = path if path.is_dir() else path.parent
    qa_path = path if path.is_file() else folder / "qa.jsonl.gz"
    docs_path = folder / "documents.jsonl.gz"
    if not docs_path.exists():
        docs_path = folder / "documents.jsonl"
    for needed in (qa_path, docs_path):
        if not needed.exists():
            raise InputError(
                [
                    Problem(
                        str(needed),
                        None,
                        "--path",
                        "not found: pass the knowledge-base folder holding documents.jsonl(.gz) and qa.jsonl.gz",
                    )
                ]
            )
    result = load_input(docs_path, "kb")
    report = _ingest(store, result, progress)
    documents = [e.event for e in result.events if isinstance(e.event, DocumentIngested)]
    doc_ids = tuple(d.doc_id for d in documents)
    sources = tuple(sorted({d.source for d in documents if d.source}))
    opener = gzip.open if qa_path.name.endswith(".gz") else open
    with opener(qa_path, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    by_id = {r["qid"]: r for r in records}
    chosen = _subset(list(by_id), limit)
    known = set(doc_ids)
    items = []
    for qid in chosen:
        record = by_id[qid]
        item = EvalItem(
            item_id=qid,
            dataset="medquad",
            group="medquad",
            type=str(record.get("qtype") or "medquad"),
            question=record["question"],
            gold_docs=[record["doc_id"]],
            skip_memory="no profile",
        )
        if record["doc_id"] not in known:
            item.skip_knowledge = f"gold document {record['doc_id']} is not in {docs_path.name}"
        items.append(item)
    notes = []
    if limit is not None and limit < len(by_id):
        notes.append(f"{len(chosen):,} of {len(by_id):,} questions (the first by sha256 of their qid)")
    return PreparedDataset(
        kind="medquad",
        path=str(path),
        name="medquad",
        # By source rather than by 6,256 listed ids: a per-query filter list that long costs more than the search.
        corpus=Corpus(sources=sources, label=f"documents of sources {list(sources)} ({docs_path.name})"),
        items=items,
        has_knowledge=True,
        has_memory=False,
        ingest=report,
        notes=notes,
    )
