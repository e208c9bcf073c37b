"""TREC iKAT topics (2023 test/train, 2024 test, 2025 test) -> the events of profiles, PTKB facts and items.

One topic becomes one profile `ikat:<year>-<split>:<number>` (dataset `ikat-<year>-<split>`):

- each PTKB statement -> a private Fact `<profile>:fact:<ptkb id>` (2025 lists the PTKB without ids: the id
  is the 1-based position, and `relevant_ptkbs`, which quotes statements, is matched back by text);
- a first Session `<profile>:ptkb` (ordinal 0) with one user Turn `<profile>:ptkb:<ptkb id>` per statement,
  stating it verbatim and disclosing its Fact, so that facts are reachable from turns like any other history;
- the topic title -> a Topic `<profile>:topic` concerning the facts the conversation needs;
- the conversation -> a second Session `<profile>:conv` (about the topic) of Turns
  `<profile>:conv:<turn>:user` (raw utterance; the manual rewrite in metadata `resolved_utterance`) and
  `<profile>:conv:<turn>:assistant` (the canonical response; when it is an item's reference answer, its
  metadata `reference_answer_of` names the item, and the API serves its text only with the token: gold);
- each conversation turn with gold (PTKB provenance and/or passage provenance / citations) -> an Item
  `<profile>:item:<turn>` whose question is the raw user utterance and whose reference answer is the
  canonical response, with one Requirement `<item>:r0`: fact_ids = the relevant PTKB facts, turn_ids = the
  ptkb-session turns stating them, spans = the provenance passages (whole passage).

History of an item: the ptkb session plus the conversation turns before the asked turn. The conversation
session also holds the asked turn and everything after it, so item metadata names `asked_in_turn_id` (the
user turn carrying the question) and `asked_after_turn_id` (the last turn of the item's history: the
assistant turn before it, or the last ptkb turn); evaluation must cut the history there.

Passages: 2023 ships the provenance passage texts (`<year>_<split>_topics_psg_text.jsonl`); each becomes a
Document `ikat-psg:<clueweb doc id>:<passage id>` titled with the ClueWeb doc id (text stripped of the outer
whitespace every passage carries). 2024/2025 have no passage text: provenance stays in item metadata only.
The 2023 PTKB qrels (`ptkb_rel_nist`, `ptkb_rel_org`), when present next to the topics, go into item
metadata as {ptkb id: grade}.

`load_ikat(folder)` loads every `<year>_<split>_topics.json` of the folder (result dataset `ikat`, counts
prefixed with `<year>-<split>.`); `load_ikat(file)` loads one (counts unprefixed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from graph.events import (
    REFERENCE_ANSWER_OF,
    DomainEvent,
    FactDisclosed,
    FactRecorded,
    ItemCreated,
    KnowledgeSpan,
    NewEvent,
    ProfileCreated,
    RequirementMapped,
    SessionStarted,
    TopicPlanned,
    TurnAppended,
)
from ingest.adapters import AdapterResult
from ingest.documents import documents_events, line_count
from ingest.errors import InputError, Problem, problems_from_validation
from ingest.jsonl import iter_jsonl, iter_text_lines, load_json

ACTOR = "ingest:ikat"
DOC_PREFIX = "ikat-psg"
QRELS_FILES = ("ptkb_rel_nist", "ptkb_rel_org")
_TOPICS_FILE = re.compile(r"^(\d{4})_([A-Za-z0-9]+)_topics\.json$")

_LIST_INDEX = re.compile(r"\.(\d+)(?=\.|$)")


def _field(where: str, loc: str) -> str:
    """`[0].turns` + pydantic's `turns.2.text` style loc -> `[0].turns[2].text`."""
    loc = _LIST_INDEX.sub(r"[\1]", f".{loc}")
    return f"{where}{loc}" if where else loc.lstrip(".")


# --- raw format -----------------------------------------------------------------------------------


class _RawTurn(BaseModel):
    """A turn of 2023/2024 (`utterance`, `ptkb_provenance`, `response_provenance`) or 2025
    (`user_utterance`, `relevant_ptkbs`, `citations`)."""

    model_config = ConfigDict(extra="allow")
    turn_id: int
    utterance: str | None = None
    user_utterance: str | None = None
    resolved_utterance: str | None = None
    response: str
    ptkb_provenance: list[int | str] | None = None
    relevant_ptkbs: list[int | str] | None = None
    response_provenance: list[str] | None = None
    citations: list[str] | None = None


class _RawTopic(BaseModel):
    model_config = ConfigDict(extra="allow")
    number: int | str
    title: str
    ptkb: dict[str, str] | list[str]
    turns: list[_RawTurn] | None = None
    responses: list[_RawTurn] | None = None


class _RawPassage(BaseModel):
    model_config = ConfigDict(extra="allow")
    doc_id: str
    passage_id: str | int
    passage_text: str


# --- parsed form ----------------------------------------------------------------------------------


@dataclass
class _Turn:
    number: int
    utterance: str
    resolved: str | None
    response: str
    ptkb_field: str
    ptkb_refs: list[int | str]
    provenance_field: str
    provenance: list[str]


@dataclass
class _Topic:
    number: str
    title: str
    ptkb: list[tuple[str, str]]  # (ptkb id, statement) in file order
    turns: list[_Turn]


@dataclass
class _Set:
    path: Path
    year: str
    split: str
    topics: list[_Topic]
    passages: dict[str, dict[str, Any]] = field(default_factory=dict)  # "<doc>:<passage>" -> document record
    psg_path: Path | None = None

    @property
    def tag(self) -> str:
        return f"{self.year}-{self.split}"

    @property
    def dataset(self) -> str:
        return f"ikat-{self.tag}"


# Qrels: topic number -> turn number -> ptkb id -> grade.
_Qrels = dict[str, dict[int, dict[str, int]]]


def load_ikat(path: Path) -> AdapterResult:
    """Events of one iKAT topics file, or of every topics file of a folder (validated before any event)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if _TOPICS_FILE.match(p.name))
        if not files:
            raise InputError([Problem(str(path), None, "(folder)", "no <year>_<split>_topics.json file in it")])
        folder = path
    elif path.is_file():
        files, folder = [path], path.parent
    else:
        raise InputError([Problem(str(path), None, "(path)", "no such file or folder")])

    problems: list[Problem] = []
    warnings: list[str] = []
    qrels = {name: _read_qrels(folder / name, problems) for name in QRELS_FILES if (folder / name).is_file()}
    sets = [_read_set(file, problems) for file in files]
    if problems:
        raise InputError(problems)

    events: list[NewEvent] = []
    counts: dict[str, int] = {}
    seen_docs: set[str] = set()
    for ikat_set in sets:
        set_counts = _set_events(ikat_set, qrels, events, warnings, seen_docs)
        prefix = f"{ikat_set.tag}." if path.is_dir() else ""
        counts.update({f"{prefix}{k}": v for k, v in set_counts.items()})
    if path.is_dir():
        counts["documents"] = len(seen_docs)
        counts["profiles"] = sum(len(s.topics) for s in sets)
        counts["items"] = sum(v for k, v in counts.items() if k.endswith(".items"))
    dataset = sets[0].dataset if not path.is_dir() else "ikat"
    return AdapterResult(dataset, events, counts, warnings)


# --- reading --------------------------------------------------------------------------------------


def _validate(
    model: type[BaseModel], value: Any, file: Path, line: int | None, where: str, problems: list[Problem]
) -> Any:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        for p in problems_from_validation(str(file), line, exc):
            problems.append(Problem(p.file, p.line, _field(where, p.field), p.message))
        return None


def _read_set(file: Path, problems: list[Problem]) -> _Set:
    match = _TOPICS_FILE.match(file.name)
    year, split = (match.group(1), match.group(2)) if match else ("unknown", file.stem)
    raw = load_json(file)
    ikat_set = _Set(file, year, split, [])
    if not isinstance(raw, list):
        problems.append(Problem(str(file), None, "(root)", "expected a JSON array of topics"))
        return ikat_set
    numbers: dict[str, int] = {}
    for index, value in enumerate(raw):
        where = f"[{index}]"
        topic = _validate(_RawTopic, value, file, None, where, problems)
        if topic is None:
            continue
        parsed = _parse_topic(topic, file, where, problems)
        if parsed is None:
            continue
        if parsed.number in numbers:
            problems.append(
                Problem(
                    str(file),
                    None,
                    f"{where}.number",
                    f"duplicate topic number {parsed.number!r} (first at [{numbers[parsed.number]}])",
                )
            )
            continue
        numbers[parsed.number] = index
        ikat_set.topics.append(parsed)
    psg = file.with_name(file.name.replace("_topics.json", "_topics_psg_text.jsonl"))
    if psg != file and psg.is_file():
        ikat_set.psg_path = psg
        ikat_set.passages = _read_passages(psg, problems)
    return ikat_set


def _parse_topic(topic: _RawTopic, file: Path, where: str, problems: list[Problem]) -> _Topic | None:
    n_before = len(problems)
    if (topic.turns is None) == (topic.responses is None):
        problems.append(
            Problem(
                str(file), None, f"{where}.turns", "expected exactly one of `turns` (2023/2024) or `responses` (2025)"
            )
        )
        return None
    turns_field = "turns" if topic.turns is not None else "responses"
    raw_turns = topic.turns if topic.turns is not None else topic.responses
    assert raw_turns is not None
    if isinstance(topic.ptkb, dict):
        ptkb = list(topic.ptkb.items())
    else:
        ptkb = [(str(i), text) for i, text in enumerate(topic.ptkb, start=1)]
    for ptkb_id, text in ptkb:
        if not text.strip():
            problems.append(Problem(str(file), None, f"{where}.ptkb.{ptkb_id}", "empty PTKB statement"))
    turns: list[_Turn] = []
    seen: set[int] = set()
    for t_index, raw in enumerate(raw_turns):
        t_where = f"{where}.{turns_field}[{t_index}]"
        utterance = raw.utterance if raw.utterance is not None else raw.user_utterance
        if utterance is None:
            problems.append(
                Problem(str(file), None, f"{t_where}.utterance", "missing (expected `utterance` or `user_utterance`)")
            )
            continue
        if raw.turn_id in seen:
            problems.append(Problem(str(file), None, f"{t_where}.turn_id", f"duplicate turn_id {raw.turn_id}"))
            continue
        seen.add(raw.turn_id)
        ptkb_field = "ptkb_provenance" if raw.ptkb_provenance is not None else "relevant_ptkbs"
        prov_field = "response_provenance" if raw.response_provenance is not None else "citations"
        turns.append(
            _Turn(
                number=raw.turn_id,
                utterance=utterance,
                resolved=raw.resolved_utterance,
                response=raw.response,
                ptkb_field=ptkb_field,
                ptkb_refs=list(raw.ptkb_provenance or raw.relevant_ptkbs or []),
                provenance_field=prov_field,
                provenance=list(raw.response_provenance or raw.citations or []),
            )
        )
    if len(problems) > n_before:
        return None
    return _Topic(str(topic.number), topic.title, ptkb, turns)


def _read_passages(path: Path, problems: list[Problem]) -> dict[str, dict[str, Any]]:
    passages: dict[str, dict[str, Any]] = {}
    first_line: dict[str, int] = {}
    for number, raw in iter_jsonl(path, problems):
        passage = _validate(_RawPassage, raw, path, number, "", problems)
        if passage is None:
            continue
        key = f"{passage.doc_id}:{passage.passage_id}"
        text = passage.passage_text.strip()
        if not text:
            problems.append(Problem(str(path), number, "passage_text", "empty passage text"))
            continue
        if key in passages:
            if passages[key]["text"] != text:
                problems.append(
                    Problem(
                        str(path),
                        number,
                        "passage_id",
                        f"passage {key!r} given twice with different texts (first on line {first_line[key]})",
                    )
                )
            continue
        first_line[key] = number
        passages[key] = {
            "doc_id": f"{DOC_PREFIX}:{key}",
            "title": passage.doc_id,
            "text": text,
            "source": "clueweb22",
            "collection": "trec-ikat-passages",
            "metadata": {"clueweb_doc_id": passage.doc_id, "passage_id": str(passage.passage_id)},
        }
    return passages


def _read_qrels(path: Path, problems: list[Problem]) -> _Qrels:
    """`<topic>_<turn> 0 <ptkb id> <grade>` per line."""
    qrels: _Qrels = {}
    # The bounded reader: bad bytes or over-long lines are located problems, not tracebacks.
    for number, line in iter_text_lines(path, problems):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4 or "_" not in parts[0]:
            problems.append(
                Problem(
                    str(path),
                    number,
                    "(line)",
                    f"expected '<topic>_<turn> 0 <ptkb id> <grade>', got {line.strip()!r}",
                )
            )
            continue
        topic, _, turn = parts[0].rpartition("_")
        try:
            turn_no, grade = int(turn), int(parts[3])
        except ValueError:
            problems.append(Problem(str(path), number, "(line)", f"turn and grade must be integers: {line.strip()!r}"))
            continue
        qrels.setdefault(topic, {}).setdefault(turn_no, {})[parts[2]] = grade
    return qrels


# --- events ---------------------------------------------------------------------------------------


def _resolve_ptkb(topic: _Topic, refs: list[int | str]) -> tuple[list[str], list[str]]:
    """PTKB references (ids, or statement texts in 2025) -> (ptkb ids in order without repeats, unresolved)."""
    ids = {ptkb_id for ptkb_id, _ in topic.ptkb}
    by_text: dict[str, str] = {}
    for ptkb_id, text in topic.ptkb:
        by_text.setdefault(text, ptkb_id)
        by_text.setdefault(" ".join(text.split()).casefold(), ptkb_id)
    resolved: dict[str, None] = {}
    unresolved: list[str] = []
    for ref in refs:
        key = str(ref)
        found = key if key in ids else by_text.get(key) or by_text.get(" ".join(key.split()).casefold())
        if found is None:
            unresolved.append(key)
        else:
            resolved[found] = None
    return list(resolved), unresolved


_COUNT_KEYS = (
    "topics",
    "turns",
    "ptkb_statements",
    "turns_with_gold_ptkb",
    "gold_ptkb_links",
    "unresolved_ptkb_links",
    "turns_with_passage_provenance",
    "passage_provenance_links",
    "passages_with_text",
    "provenance_links_without_text",
    "items",
    "sessions",
    "turn_events",
    "fact_disclosures",
    "spans",
)


def _set_events(
    ikat_set: _Set, qrels: dict[str, _Qrels], events: list[NewEvent], warnings: list[str], seen_docs: set[str]
) -> dict[str, int]:
    """The events of one topics file, appended to `events` in log order; returns the set's counts."""
    writer = _SetWriter(ikat_set, events, warnings)
    writer.passage_documents(seen_docs)
    set_qrels = {name: q for name, q in qrels.items() if ikat_set.year == "2023"}
    for name in set_qrels:
        writer.counts[f"{name}_turns"] = 0
    for topic in ikat_set.topics:
        writer.topic(topic, {name: q.get(topic.number, {}) for name, q in set_qrels.items()})
    return writer.counts


@dataclass
class _TopicGold:
    """One conversation turn's resolved gold: PTKB ids, unresolved references, and its history cut-off."""

    ptkb_ids: list[str]
    unresolved: list[str]
    asked_after: str | None = None


@dataclass
class _SetWriter:
    """Emits one topics file's events in a fixed order, topic by topic, and keeps its counts and warnings."""

    ikat_set: _Set
    events: list[NewEvent]
    warnings: list[str]
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.counts = dict.fromkeys(_COUNT_KEYS, 0)
        self.counts["topics"] = len(self.ikat_set.topics)
        self.counts["passages_with_text"] = len(self.ikat_set.passages)

    @property
    def file(self) -> str:
        return self.ikat_set.path.name

    def emit(self, event: DomainEvent) -> None:
        self.events.append(NewEvent(event, ACTOR))

    def passage_documents(self, seen_docs: set[str]) -> None:
        """A Document per passage text not yet emitted by an earlier file of the same load."""
        fresh = []
        for record in self.ikat_set.passages.values():
            if record["doc_id"] in seen_docs:
                continue
            seen_docs.add(record["doc_id"])
            fresh.append(record)
        for event in documents_events(fresh):
            self.emit(event)
        if self.ikat_set.year == "2023" and not self.ikat_set.passages:
            self.warnings.append(
                f"{self.file}: no passage text file next to it; provenance kept in item metadata, no spans"
            )

    def topic(self, topic: _Topic, topic_qrels: dict[str, dict[int, dict[str, int]]]) -> None:
        profile = f"ikat:{self.ikat_set.tag}:{topic.number}"
        self.counts["turns"] += len(topic.turns)
        self.counts["ptkb_statements"] += len(topic.ptkb)
        gold = [self._turn_gold(topic, turn) for turn in topic.turns]
        self._profile_and_facts(topic, profile, gold)
        last_history_turn = self._ptkb_session(topic, profile)
        conv = self._conversation(topic, profile, 1 if topic.ptkb else 0, last_history_turn, gold)
        self._check_qrels(topic, topic_qrels)
        for turn, turn_gold in zip(topic.turns, gold, strict=True):
            self._item(topic, profile, conv, turn, turn_gold, topic_qrels)

    def _turn_gold(self, topic: _Topic, turn: _Turn) -> _TopicGold:
        ptkb_ids, unresolved = _resolve_ptkb(topic, turn.ptkb_refs)
        for ref in unresolved:
            self.warnings.append(
                f"{self.file}: topic {topic.number} turn {turn.number}: {turn.ptkb_field} {ref!r} "
                "matches no PTKB statement (kept in item metadata `unresolved_ptkbs`)"
            )
        return _TopicGold(ptkb_ids, unresolved)

    def _profile_and_facts(self, topic: _Topic, profile: str, gold: list[_TopicGold]) -> None:
        """The Profile, a private Fact per PTKB statement, and the Topic concerning the facts the turns need."""
        ikat_set = self.ikat_set
        concerned = list(dict.fromkeys(f"{profile}:fact:{pid}" for g in gold for pid in g.ptkb_ids))
        attributes: dict[str, Any] = {"ikat_topic": topic.number, "year": ikat_set.year, "split": ikat_set.split}
        if "-" in topic.number:
            attributes["conversation_seed"] = topic.number.split("-")[0]
        self.emit(
            ProfileCreated(
                profile_id=profile,
                dataset=ikat_set.dataset,
                name=f"iKAT {ikat_set.year} {ikat_set.split} topic {topic.number}",
                description=topic.title,
                attributes=attributes,
            )
        )
        for ptkb_id, text in topic.ptkb:
            self.emit(
                FactRecorded(
                    fact_id=f"{profile}:fact:{ptkb_id}",
                    profile_id=profile,
                    text=text,
                    private=True,
                    category="ptkb",
                    metadata={"ptkb_id": ptkb_id},
                )
            )
        self.emit(TopicPlanned(topic_id=f"{profile}:topic", profile_id=profile, title=topic.title, fact_ids=concerned))

    def _ptkb_session(self, topic: _Topic, profile: str) -> str | None:
        """Session 0: the user states each PTKB statement verbatim; returns its last turn id (None without PTKB)."""
        if not topic.ptkb:
            return None
        ptkb_session = f"{profile}:ptkb"
        self.emit(
            SessionStarted(
                session_id=ptkb_session,
                profile_id=profile,
                ordinal=0,
                metadata={
                    "kind": "ptkb",
                    "synthetic": True,
                    "note": "the user states each PTKB statement verbatim, in PTKB order",
                },
            )
        )
        for ordinal, (ptkb_id, text) in enumerate(topic.ptkb):
            self.emit(
                TurnAppended(
                    turn_id=f"{ptkb_session}:{ptkb_id}",
                    session_id=ptkb_session,
                    ordinal=ordinal,
                    role="user",
                    text=text,
                    metadata={"ptkb_id": ptkb_id},
                )
            )
        for ptkb_id, _ in topic.ptkb:
            self.emit(FactDisclosed(fact_id=f"{profile}:fact:{ptkb_id}", turn_id=f"{ptkb_session}:{ptkb_id}"))
        self.counts["sessions"] += 1
        self.counts["turn_events"] += len(topic.ptkb)
        self.counts["fact_disclosures"] += len(topic.ptkb)
        return f"{ptkb_session}:{topic.ptkb[-1][0]}"

    def _conversation(
        self, topic: _Topic, profile: str, ordinal: int, last_history_turn: str | None, gold: list[_TopicGold]
    ) -> str:
        """The conversation session (user utterance + canonical response per turn); sets each turn's cut-off."""
        conv = f"{profile}:conv"
        self.emit(
            SessionStarted(
                session_id=conv,
                profile_id=profile,
                ordinal=ordinal,
                topic_id=f"{profile}:topic",
                metadata={"kind": "conversation"},
            )
        )
        self.counts["sessions"] += 1
        for index, (turn, turn_gold) in enumerate(zip(topic.turns, gold, strict=True)):
            turn_gold.asked_after = last_history_turn
            meta: dict[str, Any] = {"ikat_turn_id": turn.number}
            if turn.resolved is not None:
                meta["resolved_utterance"] = turn.resolved
            self.emit(
                TurnAppended(
                    turn_id=f"{conv}:{turn.number}:user",
                    session_id=conv,
                    ordinal=2 * index,
                    role="user",
                    text=turn.utterance,
                    metadata=meta,
                )
            )
            answer_meta: dict[str, Any] = {"ikat_turn_id": turn.number}
            if turn.ptkb_refs or turn.provenance:
                # the item of this turn (made below) has this response as its reference answer: the public
                # history of the next turns, but gold for that item (served only with the API token)
                answer_meta[REFERENCE_ANSWER_OF] = f"{profile}:item:{turn.number}"
            self.emit(
                TurnAppended(
                    turn_id=f"{conv}:{turn.number}:assistant",
                    session_id=conv,
                    ordinal=2 * index + 1,
                    role="assistant",
                    text=turn.response,
                    metadata=answer_meta,
                )
            )
            last_history_turn = f"{conv}:{turn.number}:assistant"
            self.counts["turn_events"] += 2
        return conv

    def _check_qrels(self, topic: _Topic, topic_qrels: dict[str, dict[int, dict[str, int]]]) -> None:
        texts = dict(topic.ptkb)
        turn_numbers = {turn.number for turn in topic.turns}
        for name, by_turn in topic_qrels.items():
            for turn_no, grades in by_turn.items():
                bad = sorted(set(grades) - set(texts))
                if turn_no not in turn_numbers:
                    self.warnings.append(f"{name}: {topic.number}_{turn_no}: no such turn in {self.file}")
                elif bad:
                    self.warnings.append(f"{name}: {topic.number}_{turn_no}: PTKB ids {bad} not in the topic's PTKB")

    def _spans(self, topic: _Topic, turn: _Turn, provenance: list[str]) -> tuple[list[KnowledgeSpan], list[str]]:
        """Whole-passage spans for the provenance ids that have text, and the ids that have none."""
        spans: list[KnowledgeSpan] = []
        without_text: list[str] = []
        passages = self.ikat_set.passages
        if not passages:
            return spans, without_text
        for key in provenance:
            passage = passages.get(key)
            if passage is None:
                without_text.append(key)
                continue
            spans.append(KnowledgeSpan(doc_id=passage["doc_id"], start_line=1, end_line=line_count(passage["text"])))
        if without_text:
            self.counts["provenance_links_without_text"] += len(without_text)
            psg_name = self.ikat_set.psg_path.name if self.ikat_set.psg_path else "-"
            self.warnings.append(
                f"{self.file}: topic {topic.number} turn {turn.number}: provenance {without_text} "
                f"has no text in {psg_name}"
            )
        return spans, without_text

    def _item(
        self,
        topic: _Topic,
        profile: str,
        conv: str,
        turn: _Turn,
        gold: _TopicGold,
        topic_qrels: dict[str, dict[int, dict[str, int]]],
    ) -> None:
        """The Item and Requirement of a turn with gold provenance; a judged turn without any is a warning."""
        counts = self.counts
        if turn.ptkb_refs:
            counts["turns_with_gold_ptkb"] += 1
        counts["gold_ptkb_links"] += len(gold.ptkb_ids)
        counts["unresolved_ptkb_links"] += len(gold.unresolved)
        provenance = list(dict.fromkeys(turn.provenance))
        if turn.provenance:
            counts["turns_with_passage_provenance"] += 1
        counts["passage_provenance_links"] += len(turn.provenance)
        if len(provenance) < len(turn.provenance):
            self.warnings.append(
                f"{self.file}: topic {topic.number} turn {turn.number}: {turn.provenance_field} lists "
                "an id twice (raw list kept in metadata, counted once in spans)"
            )
        turn_qrels = {name: by_turn[turn.number] for name, by_turn in topic_qrels.items() if turn.number in by_turn}
        for name in turn_qrels:
            counts[f"{name}_turns"] += 1
        if not (turn.ptkb_refs or turn.provenance):
            for name in turn_qrels:
                self.warnings.append(
                    f"{name}: {topic.number}_{turn.number}: judged turn has no gold provenance, "
                    "so no item carries its judgements"
                )
            return
        spans, without_text = self._spans(topic, turn, provenance)
        counts["spans"] += len(spans)
        fact_ids = [f"{profile}:fact:{pid}" for pid in gold.ptkb_ids]
        item_id = f"{profile}:item:{turn.number}"
        metadata: dict[str, Any] = {
            "ikat_topic": topic.number,
            "ikat_turn_id": turn.number,
            "asked_in_turn_id": f"{conv}:{turn.number}:user",
            "asked_after_turn_id": gold.asked_after,
            "resolved_utterance": turn.resolved,
            turn.ptkb_field: turn.ptkb_refs,
            turn.provenance_field: turn.provenance,
        }
        if gold.unresolved:
            metadata["unresolved_ptkbs"] = gold.unresolved
        if without_text:
            metadata["provenance_without_text"] = without_text
        for name, grades in turn_qrels.items():
            metadata[name] = grades
        texts = dict(topic.ptkb)
        self.emit(
            ItemCreated(
                item_id=item_id,
                profile_id=profile,
                dataset=self.ikat_set.dataset,
                question=turn.utterance,
                reference_answer=turn.response,
                support_doc_ids=list(dict.fromkeys(span.doc_id for span in spans)),
                labels=_item_labels(turn, fact_ids),
                metadata=metadata,
            )
        )
        self.emit(
            RequirementMapped(
                requirement_id=f"{item_id}:r0",
                item_id=item_id,
                ordinal=0,
                text=_requirement_text(turn, [texts[pid] for pid in gold.ptkb_ids], len(provenance)),
                turn_ids=[f"{profile}:ptkb:{pid}" for pid in gold.ptkb_ids],
                fact_ids=fact_ids,
                session_ids=[f"{profile}:ptkb"] if fact_ids else [],
                spans=spans,
            )
        )
        counts["items"] += 1


def _item_labels(turn: _Turn, fact_ids: list[str]) -> list[str]:
    labels = []
    if fact_ids:
        labels.append("personalized")
    if len(fact_ids) > 1:
        labels.append("multi_fact")
    if turn.provenance:
        labels.append("grounded")
    if turn.resolved is not None and turn.resolved.strip() and turn.resolved.strip() != turn.utterance.strip():
        labels.append("context_dependent")
    return labels


def _requirement_text(turn: _Turn, statements: list[str], n_passages: int) -> str:
    request = turn.resolved.strip() if turn.resolved and turn.resolved.strip() else turn.utterance
    parts = [f"Respond to: {request}"]
    if statements:
        parts.append("taking into account what the user said: " + " | ".join(statements))
    if n_passages:
        parts.append(f"grounded in {n_passages} provenance passage(s)")
    return "; ".join(parts)
