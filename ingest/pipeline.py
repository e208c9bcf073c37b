"""Ingest: detect the format, load and validate the whole input, pre-flight against the graph, then
append the events in batches (each batch one transaction). Nothing is written when validation fails;
a crash mid-way is resumed by running the same command again (appended events are skipped)."""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graph.cypher_files import load_cypher
from graph.events import IngestCompleted, IngestStarted, NewEvent
from graph.hashing import text_sha256
from graph.ingest_lease import IngestLease
from graph.store import EventStore
from ingest.adapters import AdapterResult
from ingest.errors import InputError, Problem, problems_from_validation

FORMATS = ("bundle", "kb", "ikat", "locomo", "longmemeval")

# A pause after each committed batch; only the kill-and-resume test sets it (to kill mid-ingest).
_THROTTLE_S = float(os.environ.get("COLABENCH_INGEST_THROTTLE_S", "0") or 0)

# Creation events and the label/id field of what they create (for the pre-flight conflict check).
_CREATES = {
    "DocumentIngested": ("Document", "doc_id"),
    "ProfileCreated": ("Profile", "profile_id"),
    "FactRecorded": ("Fact", "fact_id"),
    "TopicPlanned": ("Topic", "topic_id"),
    "SessionStarted": ("Session", "session_id"),
    "TurnAppended": ("Turn", "turn_id"),
    "ItemCreated": ("Item", "item_id"),
    "RequirementMapped": ("Requirement", "requirement_id"),
}


# Keyed relationships and their key (for the pre-flight conflict check): a document link by its two documents,
# a turn's exposures and disclosures by the turn, an item's verdict by item and gate, an item's augmentation by
# the item. An input never redefines a key: the graph may hold under a key only what this input's own events
# (already in the log) put there, and an input adds under a key the graph already holds only when it resumes
# its own interrupted ingest (a batch may have split a turn's exposures). A `single` key holds one relationship
# at most, so an input that states it twice (a restated copy and a changed one) is refused too.
@dataclass(frozen=True)
class _KeyedRelationship:
    relationship: str
    key: Callable[[dict[str, Any]], str]
    subject: str  # how a problem names the key: "" (the key itself), "turn", "item"
    single: bool


_RELATIONSHIP_KEYS: dict[str, _KeyedRelationship] = {
    "DocumentsLinked": _KeyedRelationship(
        "RELATED", lambda p: f"{p['src_doc_id']}->{p['dst_doc_id']}", "", single=True
    ),
    "DocumentExposed": _KeyedRelationship("EXPOSED", lambda p: str(p["turn_id"]), "turn", single=False),
    "FactDisclosed": _KeyedRelationship("DISCLOSES", lambda p: str(p["turn_id"]), "turn", single=False),
    "ItemVerified": _KeyedRelationship(
        "verification", lambda p: f"{p['item_id']} by gate {p['gate']}", "item", single=True
    ),
    "ItemAugmented": _KeyedRelationship("AUGMENTED_FROM", lambda p: str(p["item_id"]), "item", single=True),
}


@dataclass
class IngestReport:
    dataset: str
    appended: int = 0
    skipped: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=lambda: {"parse": 0.0, "embed": 0.0, "write": 0.0})
    head_seq: int = 0
    head_hash: str = ""


def detect_format(path: Path) -> str:
    name = path.name.lower()
    if path.is_dir():
        if (path / "bundle.json").is_file():
            return "bundle"
        if any(path.glob("*_topics.json")):
            return "ikat"
        if any(path.glob("*locomo*.json")):
            return "locomo"
        if any(path.glob("longmemeval_*")):
            return "longmemeval"
    elif name.endswith((".tar.gz", ".tgz")):
        return "bundle"
    elif "locomo" in name:
        return "locomo"
    elif "longmemeval" in name:
        return "longmemeval"
    elif "topics" in name:
        return "ikat"
    elif name.endswith((".jsonl", ".jsonl.gz")):
        return "kb"
    raise InputError(
        [Problem(str(path), None, "--format", "cannot tell the format; pass --format " + "|".join(FORMATS))]
    )


def load_input(path: Path, fmt: str | None = None, locomo_caption: str | None = None) -> AdapterResult:
    """Parse and validate an input completely (raises InputError; nothing is written). Every format's events
    also pass `ingest.validation.event_problems` (the input limits), so nothing over a limit reaches Neo4j.
    `locomo_caption` (bare, bracketed): how a LoCoMo input's image captions join the turn text (its default:
    ingest.adapters.locomo.DEFAULT_CAPTION); refused for another format."""
    from ingest.validation import event_problems

    try:
        result = _load_input(path, fmt, locomo_caption)
    except ValidationError as exc:
        # An adapter built an event its own checks let through: still a located input problem, not a crash.
        raise InputError(problems_from_validation(str(path), None, exc)) from exc
    problems = event_problems(result.events, str(path))
    if problems:
        raise InputError(problems)
    return result


def _load_input(path: Path, fmt: str | None, locomo_caption: str | None = None) -> AdapterResult:
    if not path.exists():
        raise InputError([Problem(str(path), None, "path", "does not exist")])
    fmt = fmt or detect_format(path)
    if locomo_caption is not None and fmt != "locomo":
        raise InputError([Problem(str(path), None, "--locomo-caption", f"only LoCoMo has image captions, not {fmt}")])
    if fmt == "bundle":
        from ingest.validation import validate_bundle

        bundle, report, events = validate_bundle(path)
        if not report.ok:
            raise InputError(report.problems)
        return AdapterResult(bundle.name, events, report.counts)
    if fmt == "kb":
        from ingest.adapters.knowledge_base import load_knowledge_base

        return load_knowledge_base(path)
    if fmt == "ikat":
        from ingest.adapters.ikat import load_ikat

        return load_ikat(path)
    if fmt == "locomo":
        from ingest.adapters.locomo import DEFAULT_CAPTION, load_locomo

        if path.is_dir():
            files = sorted(path.glob("*locomo*.json"))
            if len(files) != 1:
                raise InputError([Problem(str(path), None, "path", "expected exactly one *locomo*.json file")])
            path = files[0]
        return load_locomo(path, locomo_caption or DEFAULT_CAPTION)
    if fmt == "longmemeval":
        from ingest.adapters.longmemeval import load_longmemeval

        return load_longmemeval(path)
    raise InputError(
        [Problem(str(path), None, "--format", f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")]
    )


def preflight(
    store: EventStore, events: list[NewEvent], ids: list[str] | None = None, resuming: bool = False
) -> list[NewEvent]:
    """Drop events already in the log; refuse (InputError) new events that would redefine an existing id or
    a keyed relationship (a document link, a turn's exposures or disclosures, a gate's verdict, an item's
    augmentation). `resuming`: the log holds this input's own IngestStarted (its ingest was interrupted)."""
    if ids is None:
        ids = [e.event.event_id() for e in events]
    existing = store.existing_event_ids(ids)
    fresh = [e for e, eid in zip(events, ids, strict=True) if eid not in existing]
    problems = _node_clashes(store, fresh) + _relationship_clashes(store, events, ids, existing, resuming)
    if problems:
        raise InputError(problems)
    return fresh


def _caption_form_clashes(store: EventStore, result: AdapterResult) -> list[Problem]:
    """A LoCoMo input whose image turns the graph already holds with their caption joined in the other form
    (`settings["locomo_caption"]`, ingest.adapters.locomo): one problem naming both forms and the option that
    matches the graph, instead of a clash per turn (and never a graph with the two forms mixed)."""
    form = result.settings.get("locomo_caption")
    if form is None:
        return []
    from graph.events import TurnAppended
    from ingest.adapters.locomo import caption_form_of

    captioned = {
        new.event.turn_id: new.event
        for new in result.events
        if isinstance(new.event, TurnAppended) and new.event.metadata.get("blip_caption")
    }
    if not captioned:
        return []
    with store.driver.session(database=store.database) as session:
        stored = [(r["id"], r["text"]) for r in session.run(load_cypher("ingest/turn_texts"), ids=list(captioned))]
    other: dict[str, list[str]] = {}
    for turn_id, text in stored:
        turn = captioned[turn_id]
        if text != turn.text:
            found = caption_form_of(text or "", str(turn.metadata["blip_caption"]))
            if found is not None and found != form:
                other.setdefault(found, []).append(turn_id)
    return [
        Problem(
            "(graph)",
            None,
            "--locomo-caption",
            f"the graph holds {len(ids):,} of this input's LoCoMo image turns (e.g. {sorted(ids)[0]!r}) with the "
            f"caption in the {found} form, and this input joins captions in the {form} form: pass "
            f"--locomo-caption {found} (`ingest`, `eval retrieval`), or use an empty graph (ingest.adapters.locomo)",
        )
        for found, ids in sorted(other.items())
    ]


def _node_clashes(store: EventStore, fresh: list[NewEvent]) -> list[Problem]:
    """New creation events whose id the graph already has (with other content: same content is not new)."""
    wanted: dict[str, Any] = {label: [] for label, _ in _CREATES.values()}
    for new in fresh:
        spec = _CREATES.get(new.event.TYPE)
        if spec:
            wanted[spec[0]].append(getattr(new.event, spec[1]))
    with store.driver.session(database=store.database) as session:
        clashes = [(r["label"], r["id"]) for r in session.run(load_cypher("ingest/existing_nodes"), **wanted)]
    return [
        Problem(
            "(graph)",
            None,
            f"{label}.id",
            f"{identifier!r} already exists in the graph with different content; remove the conflicting input or "
            "rename the id",
        )
        for label, identifier in clashes
    ]


def _relationship_clashes(
    store: EventStore, events: list[NewEvent], ids: list[str], existing: set[str], resuming: bool
) -> list[Problem]:
    """Keys under which the graph holds more relationships than this input's events already in the log made
    (the input states that key differently: a changed link weight, a turn's exposures with other lines, another
    verdict of a gate, another source of an augmented item); keys the graph holds to which this input would add
    (a turn disclosing one more fact), unless it resumes its own ingest; and single keys this input states more
    than once. A resumed ingest is never refused: everything the graph holds under its keys came from its own
    events."""
    logged: Counter[tuple[str, str]] = Counter()
    stated: Counter[tuple[str, str]] = Counter()
    wanted: dict[tuple[str, str], dict[str, Any]] = {}
    seen: set[str] = set()
    for new, event_id in zip(events, ids, strict=True):
        spec = _RELATIONSHIP_KEYS.get(new.event.TYPE)
        if spec is None or event_id in seen:
            continue
        seen.add(event_id)
        payload = new.event.payload()
        key = (new.event.TYPE, spec.key(payload))
        stated[key] += 1
        if event_id in existing:
            logged[key] += 1
        else:
            wanted.setdefault(key, payload)
    problems = [
        Problem(
            "(input)",
            None,
            _where(kind, key),
            f"this input states it {n} times with different content; a {_RELATIONSHIP_KEYS[kind].relationship} "
            "is stated once: keep one of its records",
        )
        for (kind, key), n in stated.items()
        if n > 1 and _RELATIONSHIP_KEYS[kind].single and (kind, key) in wanted
    ]
    if not wanted:
        return problems
    params: dict[str, Any] = {
        "links": [
            {"key": k, "src": p["src_doc_id"], "dst": p["dst_doc_id"]}
            for (kind, k), p in wanted.items()
            if kind == "DocumentsLinked"
        ],
        "exposure_turns": [k for kind, k in wanted if kind == "DocumentExposed"],
        "disclosure_turns": [k for kind, k in wanted if kind == "FactDisclosed"],
        "verdicts": [
            {"key": k, "item": p["item_id"], "gate": p["gate"]}
            for (kind, k), p in wanted.items()
            if kind == "ItemVerified"
        ],
        "augmented_items": [k for kind, k in wanted if kind == "ItemAugmented"],
    }
    with store.driver.session(database=store.database) as session:
        rows = [
            (r["type"], r["key"], int(r["n"]))
            for r in session.run(load_cypher("ingest/existing_relationships"), **params)
        ]
    for kind, key, held in rows:
        restated = logged[(kind, key)]
        if held <= restated:
            # Turn keys come back for every turn in the graph (held 0 included): its exposures and disclosures
            # are part of what the earlier input said the turn was.
            if (held or _RELATIONSHIP_KEYS[kind].subject == "turn") and not resuming:
                problems.append(
                    Problem(
                        "(graph)",
                        None,
                        _where(kind, key),
                        f"the graph already holds {held} such relationship(s) under this key, stated by an earlier "
                        f"input, and this input adds {stated[(kind, key)] - restated} more: it would change what that "
                        "input said. Remove the added records (or give the documents, turn or item new ids)",
                    )
                )
            continue
        problems.append(
            Problem(
                "(graph)",
                None,
                _where(kind, key),
                f"the graph already holds {held} such relationship(s) and this input restates {restated} of them "
                f"with the same content; its {kind} events would add a second, different version. Remove the "
                "conflicting records (or give the documents, turn or item new ids)",
            )
        )
    return problems


def _where(kind: str, key: str) -> str:
    spec = _RELATIONSHIP_KEYS[kind]
    return f"{spec.relationship} {key}" if not spec.subject else f"{spec.relationship} of {spec.subject} {key}"


def write_events(
    store: EventStore,
    result: AdapterResult,
    batch_size: int = 2000,
    progress: Callable[[str, int, int], None] | None = None,
) -> IngestReport:
    """Append the adapter's events in batches; report timings split into embed and write."""
    report = IngestReport(result.dataset, counts=dict(result.counts), warnings=list(result.warnings))
    ids = [e.event.event_id() for e in result.events]
    # The input's events are bracketed by IngestStarted / IngestCompleted (same id on resume): until the second
    # is in the log, `graph summary`, `eval`, `run` and the API say this ingest is incomplete.
    ingest_id = f"ingest-{text_sha256(chr(10).join(ids))[:16]}"
    opened = IngestStarted(ingest_id=ingest_id, dataset=result.dataset, n_events=len(ids))
    resuming = bool(store.existing_event_ids([opened.event_id()]))
    problems = _caption_form_clashes(store, result)
    if problems:
        raise InputError(problems)
    fresh = preflight(store, result.events, ids, resuming)
    report.skipped = len(result.events) - len(fresh)
    # While it writes, the ingest holds a lease (graph/ingest_lease.py) so listings say "in progress", not
    # "interrupted"; a process killed outright leaves it to expire.
    with IngestLease(store.driver, store.database, ingest_id, result.dataset) if fresh else nullcontext():
        _write_fresh(store, fresh, opened, report, batch_size, progress)
    head = store.head()
    report.head_seq, report.head_hash = head.seq, head.hash
    return report


def _write_fresh(
    store: EventStore,
    fresh: list[NewEvent],
    opened: IngestStarted,
    report: IngestReport,
    batch_size: int,
    progress: Callable[[str, int, int], None] | None,
) -> None:
    if fresh:
        store.append([NewEvent(opened, actor="ingest")])
    total = len(fresh)
    done = 0
    if progress:
        progress("write", 0, total)
    for start in range(0, total, batch_size):
        batch = fresh[start : start + batch_size]
        if store.encoder is not None:
            started = time.perf_counter()
            store.warm_embeddings(batch)
            report.seconds["embed"] += time.perf_counter() - started
        started = time.perf_counter()
        appended = store.append(batch)
        report.seconds["write"] += time.perf_counter() - started
        report.appended += appended.appended
        report.skipped += appended.skipped
        done += len(batch)
        if progress:
            progress("write", done, total)
        if _THROTTLE_S:
            time.sleep(_THROTTLE_S)
    if fresh or store.existing_event_ids([opened.event_id()]):
        store.append([NewEvent(IngestCompleted(ingest_id=opened.ingest_id), actor="ingest")])
