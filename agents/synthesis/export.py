"""A synthesized dataset as a ColaBench bundle: read back from the event log (the synthesis's own events, by
dataset), written as bundle.json + JSONL files, and checked with the same checker `./colabench check` uses.

Documents: the ones the bundle references (fact sources, exposures, support and history documents, spans,
links), or with `documents="kb"` every document of the synthesis's KB, so the bundle is self-contained."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agents.synthesis.errors import SynthesisError, UnknownReferenceError
from graph.cypher_files import load_cypher
from graph.store import EventStore
from graph.stored_event import StoredEvent

_TYPES = (
    "SynthesisStarted",
    "SynthesisDraftRecorded",
    "DocumentsLinked",
    "ProfileCreated",
    "FactRecorded",
    "TopicPlanned",
    "SessionStarted",
    "TurnAppended",
    "FactDisclosed",
    "DocumentExposed",
    "ItemCreated",
    "RequirementMapped",
    "ItemVerified",
    "ItemAugmented",
)


@dataclass
class ExportSummary:
    out_dir: Path
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _synthesized(event: StoredEvent) -> bool:
    return event.actor.startswith("synthesis:")


def export_bundle(
    store: EventStore, dataset: str, out_dir: Path, *, documents: Literal["referenced", "kb"] = "referenced"
) -> ExportSummary:
    """Write the dataset's synthesis as a bundle in `out_dir` and check it; UnknownReferenceError when the graph
    holds no synthesis of `dataset`."""
    synthesis_id = f"synth-{dataset}"
    started, by_type = _synthesis_events(store, dataset, synthesis_id)
    config = started["config"]
    chosen = _select(by_type, dataset, synthesis_id)
    session_records = _session_records(chosen)
    item_records = [
        _item_record(
            i, chosen.reqs[i["item_id"]], chosen.verifications[i["item_id"]], chosen.augmented.get(i["item_id"])
        )
        for i in chosen.items
    ]
    doc_records = _document_records(store, _referenced_doc_ids(chosen), config, documents)
    models = started.get("models", {})
    manifest = {
        "name": dataset,
        "version": "1",
        "description": (
            f"Synthesized by `colabench synth` (seed {config.get('seed')}, model "
            f"{(models.get('synthesis') or {}).get('model')}): {len(chosen.profiles)} profiles, "
            f"{len(session_records)} sessions, {len(item_records)} items over {len(doc_records)} documents of the "
            "knowledge base."
        ),
        "licence": "Documents: as licensed by their sources (see each document's source). Synthetic profiles, "
        "sessions and items: generated; check your model's terms before redistributing.",
        "attribution": [],
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {
        "documents": doc_records,
        **_profile_files(chosen),
        "sessions": session_records,
        "items": item_records,
    }
    _write_bundle(out_dir, manifest, files)
    summary = ExportSummary(out_dir, counts={name: len(records) for name, records in files.items()})
    summary.problems = _check(out_dir)
    return summary


def _synthesis_events(
    store: EventStore, dataset: str, synthesis_id: str
) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """The payload of the dataset's latest SynthesisStarted, and every synthesis event's payload by type."""
    events = [e for e in store.read(types=list(_TYPES)) if _synthesized(e)]
    started = [e for e in events if e.type == "SynthesisStarted" and e.payload["synthesis_id"] == synthesis_id]
    if not started:
        raise UnknownReferenceError(f"no synthesis of dataset {dataset!r} in the graph (./colabench synth ... first)")
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        by_type[e.type].append(e.payload)
    return started[-1].payload, by_type


@dataclass
class _Chosen:
    """The dataset's share of the synthesis events, grouped by what each bundle record is built from."""

    profiles: list[dict[str, Any]]
    facts: list[dict[str, Any]]
    topics: list[dict[str, Any]]
    sessions: list[dict[str, Any]]
    turns_by_session: dict[str, list[dict[str, Any]]]
    disclosed: dict[str, list[str]]  # turn id -> fact ids
    exposures: dict[str, list[dict[str, Any]]]  # turn id -> DocumentExposed payloads
    items: list[dict[str, Any]]
    reqs: dict[str, list[dict[str, Any]]]  # item id -> RequirementMapped payloads
    verifications: dict[str, list[dict[str, Any]]]  # item id -> ItemVerified payloads
    augmented: dict[str, dict[str, Any]]  # item id -> its ItemAugmented payload
    links: list[dict[str, Any]]  # the DocumentsLinked the docs stage accepted


def _grouped(payloads: list[dict[str, Any]], key: str, keep: set[str]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for payload in payloads:
        if payload[key] in keep:
            grouped[payload[key]].append(payload)
    return grouped


def _select(by_type: dict[str, list[dict[str, Any]]], dataset: str, synthesis_id: str) -> _Chosen:
    """The events of the dataset's profiles, sessions, turns and items, and the document links its synthesis
    accepted."""
    profiles = [p for p in by_type["ProfileCreated"] if p["dataset"] == dataset]
    pids = {p["profile_id"] for p in profiles}
    sessions = [s for s in by_type["SessionStarted"] if s["profile_id"] in pids]
    turns_by_session = _grouped(by_type["TurnAppended"], "session_id", {s["session_id"] for s in sessions})
    tids = {t["turn_id"] for ts in turns_by_session.values() for t in ts}
    disclosed: dict[str, list[str]] = defaultdict(list)
    for d in by_type["FactDisclosed"]:
        if d["turn_id"] in tids:
            disclosed[d["turn_id"]].append(d["fact_id"])
    items = [i for i in by_type["ItemCreated"] if i["dataset"] == dataset]
    iids = {i["item_id"] for i in items}
    linked_pairs = {
        (d["subject"], dst)
        for d in by_type["SynthesisDraftRecorded"]
        if d["synthesis_id"] == synthesis_id and d["stage"] == "docs" and d["outcome"] == "accepted"
        for dst in d["details"].get("linked", [])
    }
    return _Chosen(
        profiles=profiles,
        facts=[f for f in by_type["FactRecorded"] if f["profile_id"] in pids],
        topics=[t for t in by_type["TopicPlanned"] if t["profile_id"] in pids],
        sessions=sessions,
        turns_by_session=turns_by_session,
        disclosed=disclosed,
        exposures=_grouped(by_type["DocumentExposed"], "turn_id", tids),
        items=items,
        reqs=_grouped(by_type["RequirementMapped"], "item_id", iids),
        verifications=_grouped(by_type["ItemVerified"], "item_id", iids),
        augmented={a["item_id"]: a for a in by_type["ItemAugmented"] if a["item_id"] in iids},
        links=[lk for lk in by_type["DocumentsLinked"] if (lk["src_doc_id"], lk["dst_doc_id"]) in linked_pairs],
    )


def _session_records(chosen: _Chosen) -> list[dict[str, Any]]:
    """A bundle session per synthesized session that has turns, its turns in order."""
    session_records = []
    for s in chosen.sessions:
        turn_records = []
        for t in sorted(chosen.turns_by_session[s["session_id"]], key=lambda t: t["ordinal"]):
            turn_records.append(_turn_record(t, chosen.disclosed[t["turn_id"]], chosen.exposures[t["turn_id"]]))
        if not turn_records:
            continue
        session_records.append(
            {
                "session_id": s["session_id"],
                "profile_id": s["profile_id"],
                "topic_id": s.get("topic_id"),
                "started_at": s.get("started_at"),
                "turns": turn_records,
            }
        )
    return session_records


def _referenced_doc_ids(chosen: _Chosen) -> dict[str, None]:
    """Every document the bundle's records name (fact sources, exposures, support and history documents, spans,
    links), in that order, each once."""
    referenced: dict[str, None] = {}
    for f in chosen.facts:
        src = (f.get("metadata") or {}).get("source_doc_id")
        if src:
            referenced.setdefault(src)
    for xs in chosen.exposures.values():
        for x in xs:
            referenced.setdefault(x["doc_id"])
    for i in chosen.items:
        for did in [*i["support_doc_ids"], *i["history_doc_ids"]]:
            referenced.setdefault(did)
    for rs in chosen.reqs.values():
        for r in rs:
            for span in r["spans"]:
                referenced.setdefault(span["doc_id"])
    for lk in chosen.links:
        referenced.setdefault(lk["src_doc_id"])
        referenced.setdefault(lk["dst_doc_id"])
    return referenced


def _document_records(
    store: EventStore, referenced: dict[str, None], config: dict[str, Any], documents: Literal["referenced", "kb"]
) -> list[dict[str, Any]]:
    """The bundle's documents: the referenced ones, or with `documents="kb"` every document of the synthesis's
    KB (and the web stage's pages) after them."""
    doc_ids = list(referenced)
    if documents == "kb":
        sources = list(config.get("kb_sources") or [])
        sources += ["web"] if sources and "web" not in sources else []  # the pages the web stage added
        with store.driver.session(database=store.database) as session:
            rows = session.run(load_cypher("synthesis/kb_doc_ids"), sources=sources)
            for row in rows:
                referenced.setdefault(str(row["doc_id"]))
        doc_ids = list(referenced)
    with store.driver.session(database=store.database) as session:
        docs = [r.data() for r in session.run(load_cypher("synthesis/documents_full"), doc_ids=doc_ids)]
    return [
        {
            k: v
            for k, v in {
                "doc_id": d["doc_id"],
                "title": d["title"] or d["doc_id"],
                "text": d["text"],
                "url": d["url"],
                "source": d["source"],
                "collection": d["collection"],
                "publisher": d["publisher"],
                "metadata": json.loads(d["metadata"]) if d["metadata"] else {},
            }.items()
            if v is not None
        }
        for d in docs
    ]


def _profile_files(chosen: _Chosen) -> dict[str, list[dict[str, Any]]]:
    """The doc_links, profiles, facts and topics files."""
    return {
        "doc_links": [
            {"src": lk["src_doc_id"], "dst": lk["dst_doc_id"], "description": lk["description"], "weight": lk["weight"]}
            for lk in chosen.links
        ],
        "profiles": [
            {
                "profile_id": p["profile_id"],
                "name": p.get("name"),
                "description": p.get("description"),
                "attributes": p.get("attributes") or {},
            }
            for p in chosen.profiles
        ],
        "facts": [
            {
                "fact_id": f["fact_id"],
                "profile_id": f["profile_id"],
                "text": f["text"],
                "private": f.get("private", True),
                "category": f.get("category"),
            }
            for f in chosen.facts
        ],
        "topics": [
            {
                "topic_id": t["topic_id"],
                "profile_id": t["profile_id"],
                "title": t["title"],
                "intent": t.get("intent", ""),
                "fact_ids": t.get("fact_ids", []),
            }
            for t in chosen.topics
        ],
    }


def _write_bundle(out_dir: Path, manifest: dict[str, Any], files: dict[str, list[dict[str, Any]]]) -> None:
    """bundle.json and one JSONL file per record kind."""
    (out_dir / "bundle.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, records in files.items():
        with (out_dir / f"{name}.jsonl").open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _turn_record(turn: dict[str, Any], fact_ids: list[str], exposed: list[dict[str, Any]]) -> dict[str, Any]:
    """A bundle turn: its tool calls get the spans their exposures recorded, in call order (a search's results
    by rank, a read's span)."""
    queue = list(exposed)
    calls = []
    for call in turn.get("tool_calls") or []:
        tool = "read" if call["tool"] == "read" else "search"
        returned = []
        for did in call.get("returned_doc_ids") or []:
            match = next((x for x in queue if x["doc_id"] == did and x["via"] == tool), None)
            if match is None:
                raise SynthesisError(f"turn {turn['turn_id']}: no exposure recorded for {tool} result {did!r}")
            queue.remove(match)
            returned.append({"doc_id": did, "start_line": match["start_line"], "end_line": match["end_line"]})
        calls.append({"tool": tool, "arguments": call.get("arguments") or {}, "returned": returned})
    record: dict[str, Any] = {"turn_id": turn["turn_id"], "role": turn["role"], "text": turn["text"]}
    for key in ("speaker", "at"):
        if turn.get(key) is not None:
            record[key] = turn[key]
    if fact_ids:
        record["disclosed_fact_ids"] = fact_ids
    if calls:
        record["tool_calls"] = calls
    if turn.get("metadata"):
        record["metadata"] = turn["metadata"]
    return record


def _item_record(
    item: dict[str, Any],
    reqs: list[dict[str, Any]],
    verifications: list[dict[str, Any]],
    augmented: dict[str, Any] | None,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "item_id": item["item_id"],
        "profile_id": item["profile_id"],
        "question": item["question"],
        "reference_answer": item.get("reference_answer"),
        "asked_at": item.get("asked_at"),
        "question_type": item.get("question_type"),
        "support_doc_ids": item["support_doc_ids"],
        "history_doc_ids": item["history_doc_ids"],
        "batch": item.get("batch"),
        "labels": item.get("labels", []),
        "requirements": [
            {
                k: v
                for k, v in {
                    "requirement_id": r["requirement_id"],
                    "text": r["text"],
                    "turn_ids": r["turn_ids"],
                    "fact_ids": r["fact_ids"],
                    "spans": r["spans"],
                    "action": r.get("action"),
                }.items()
                if v is not None
            }
            for r in sorted(reqs, key=lambda r: r["ordinal"])
        ],
        "metadata": item.get("metadata") or {},
        "verifications": [
            {"gate": v["gate"], "verdict": v["verdict"], "details": v.get("details") or {}} for v in verifications
        ],
    }
    admission = (item.get("metadata") or {}).get("admission")
    if admission in ("direct", "after_revision"):
        record["admission"] = admission
    if augmented is not None:
        record["augmented_from"] = {
            "from_item_id": augmented["from_item_id"],
            "direction": augmented["direction"],
            "details": augmented.get("details") or {},
        }
    return {k: v for k, v in record.items() if v is not None}


def _check(out_dir: Path) -> list[str]:
    """Problems `./colabench check` would report for the written bundle (none when it is valid)."""
    from ingest.bundle.check import check_bundle
    from ingest.bundle.reader import read_bundle

    report = check_bundle(read_bundle(out_dir))
    return [str(p) for p in report.problems]
