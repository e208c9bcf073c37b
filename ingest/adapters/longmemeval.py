"""LongMemEval (S and oracle records) -> the events of haystack sessions and one item per question.

`load_longmemeval(path)`: `longmemeval_s*.json(.gz)` (dataset `longmemeval-s`, id prefix `lme-s`),
`longmemeval_oracle*.json(.gz)` (dataset `longmemeval-oracle`, prefix `lme-oracle`), or a folder holding
them (every such file; result dataset `longmemeval`, counts prefixed with `s.` / `oracle.`).

Mapping (one question = one profile `<prefix>:<question_id>`, since every question has its own haystack):

- haystack session i -> Session `<profile>:<haystack session id>` (ordinal = haystack position, source_id =
  the original id, started_at = the original `haystack_dates[i]` string, ISO form in metadata
  `started_at_iso`). A session id listed twice in one haystack (it happens in S) keeps the first id; later
  copies get `@<haystack index>` appended (warning). Haystack order is kept even where the dates are not
  sorted (counted as `sessions_out_of_date_order`); sessions dated after the question are counted too.
- each message -> Turn `<session>:<index>` (role as given; `has_answer` copied to metadata when present).
- the question -> Item `<profile>:q` (question, answer stringified, question_type, asked_at = the original
  question_date, ISO in metadata; label `abstention` for `_abs` ids) with one Requirement `<item>:r0`:
  turn_ids = every `has_answer` turn (user and assistant: single-session-assistant evidence is an assistant
  turn; user ones are also listed in item metadata `evidence_user_turn_ids`), session_ids = the answer
  sessions. Answer sessions missing from the haystack, or without any has_answer turn (all of them for
  abstention questions), are reported in warnings and item metadata, never dropped silently.
- knowledge-update questions whose evidence spans two or more sessions -> one private Fact per evidence
  session, each later one `supersedes` the one before (update points of `eval memory`; see
  ingest/adapters/longmemeval_updates.py; counted as `update_points`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from graph.events import (
    DomainEvent,
    FactRecorded,
    ItemCreated,
    NewEvent,
    ProfileCreated,
    RequirementMapped,
    SessionStarted,
    TurnAppended,
)
from ingest.adapters import AdapterResult
from ingest.adapters.longmemeval_updates import KNOWLEDGE_UPDATE, EvidenceTurn, update_fact_events
from ingest.errors import InputError, Problem, problems_from_validation
from ingest.history_dates import LONGMEMEVAL_DATE_FORMAT, parse_dataset_date
from ingest.jsonl import load_json

ACTOR = "ingest:longmemeval"
_FILE = re.compile(r"^longmemeval_(s|m|oracle)(?:_[A-Za-z0-9]+)*\.json(?:\.gz)?$")

_LIST_INDEX = re.compile(r"\.(\d+)(?=\.|$)")


def _field(where: str, loc: str) -> str:
    """`[0].turns` + pydantic's `turns.2.text` style loc -> `[0].turns[2].text`."""
    loc = _LIST_INDEX.sub(r"[\1]", f".{loc}")
    return f"{where}{loc}" if where else loc.lstrip(".")


@dataclass(frozen=True)
class _Variant:
    key: str  # "s" | "m" | "oracle"

    @property
    def dataset(self) -> str:
        return f"longmemeval-{self.key}"

    @property
    def prefix(self) -> str:
        return f"lme-{self.key}"


class _RawMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["user", "assistant"]
    content: str
    has_answer: bool | None = None


class _RawRecord(BaseModel):
    model_config = ConfigDict(extra="allow")
    question_id: str
    question_type: str
    question: str
    answer: str | int | float
    question_date: str
    haystack_session_ids: list[str]
    haystack_dates: list[str]
    haystack_sessions: list[list[_RawMessage]]
    answer_session_ids: list[str]


def parse_date(text: str) -> str | None:
    """ISO form of a LongMemEval date ("2023/05/30 (Tue) 23:40" -> "2023-05-30T23:40:00"), else None."""
    found = parse_dataset_date(text, LONGMEMEVAL_DATE_FORMAT)
    return None if found is None else found.isoformat()


def load_longmemeval(path: Path, variant: str | None = None) -> AdapterResult:
    """Events of one LongMemEval file, or of every S/M/oracle file of a folder (validated before any event).

    `variant` ("s", "m" or "oracle") names the variant of a single file whose name does not tell it.
    """
    path = Path(path)
    if variant is not None and variant not in ("s", "m", "oracle"):
        raise InputError([Problem(str(path), None, "(variant)", f"expected s, m or oracle, got {variant!r}")])
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if _FILE.match(p.name))
        if not files:
            raise InputError([Problem(str(path), None, "(folder)", "no longmemeval_<s|m|oracle>*.json(.gz) file")])
    elif path.is_file():
        files = [path]
    else:
        raise InputError([Problem(str(path), None, "(path)", "no such file or folder")])

    problems: list[Problem] = []
    loaded: list[tuple[Path, _Variant, list[_RawRecord]]] = []
    for file in files:
        match = _FILE.match(file.name)
        if variant is not None and not path.is_dir():
            loaded.append((file, _Variant(variant), _read(file, problems)))
            continue
        if match is None:
            problems.append(
                Problem(
                    str(file),
                    None,
                    "(file name)",
                    "cannot tell S from oracle: expected longmemeval_<s|m|oracle>*.json(.gz), or pass variant",
                )
            )
            continue
        loaded.append((file, _Variant(match.group(1)), _read(file, problems)))
    variants = Counter(v.key for _, v, _ in loaded)
    for key, n in variants.items():
        if n > 1:
            problems.append(
                Problem(str(path), None, "(folder)", f"{n} files of variant {key!r}: their ids would clash")
            )
    if problems:
        raise InputError(problems)

    events: list[NewEvent] = []
    warnings: list[str] = []
    counts: dict[str, int] = {}
    for file, kind, records in loaded:
        set_counts = _events(file, kind, records, events, warnings)
        prefix = f"{kind.key}." if path.is_dir() else ""
        counts.update({f"{prefix}{k}": v for k, v in set_counts.items()})
    dataset = loaded[0][1].dataset if not path.is_dir() else "longmemeval"
    return AdapterResult(dataset, events, counts, warnings)


def _read(file: Path, problems: list[Problem]) -> list[_RawRecord]:
    raw = load_json(file)
    if not isinstance(raw, list):
        problems.append(Problem(str(file), None, "(root)", "expected a JSON array of question records"))
        return []
    records: list[_RawRecord] = []
    seen: dict[str, int] = {}
    for index, value in enumerate(raw):
        where = f"[{index}]"
        try:
            record = _RawRecord.model_validate(value)
        except ValidationError as exc:
            qid = value.get("question_id") if isinstance(value, dict) else None
            label = f"{where}({qid})" if isinstance(qid, str) else where
            problems.extend(
                Problem(p.file, None, _field(label, p.field), p.message)
                for p in problems_from_validation(str(file), None, exc)
            )
            continue
        where = f"[{index}]({record.question_id})"
        if record.question_id in seen:
            problems.append(
                Problem(
                    str(file),
                    None,
                    f"{where}.question_id",
                    f"duplicate question_id (first at [{seen[record.question_id]}])",
                )
            )
            continue
        seen[record.question_id] = index
        n = len(record.haystack_session_ids)
        if len(record.haystack_dates) != n or len(record.haystack_sessions) != n:
            problems.append(
                Problem(
                    str(file),
                    None,
                    f"{where}.haystack_sessions",
                    f"haystack_session_ids ({n}), haystack_dates ({len(record.haystack_dates)}) and "
                    f"haystack_sessions ({len(record.haystack_sessions)}) differ in length",
                )
            )
            continue
        records.append(record)
    return records


_COUNT_KEYS = (
    "questions",
    "abstention",
    "sessions",
    "turns",
    "user_turns",
    "has_answer_turns",
    "has_answer_user_turns",
    "answer_sessions",
    "answer_sessions_missing",
    "answer_sessions_without_has_answer",
    "has_answer_outside_answer_sessions",
    "duplicate_session_ids",
    "empty_turns",
    "sessions_out_of_date_order",
    "sessions_after_question",
    "dates_unparsed",
    "sessions_min",
    "sessions_max",
    "update_points",
)


def _events(
    file: Path, variant: _Variant, records: list[_RawRecord], events: list[NewEvent], warnings: list[str]
) -> dict[str, int]:
    """The events of one file, appended to `events` in log order (per question: the profile, its haystack
    sessions and turns, the item and its requirement, the knowledge-update facts); returns the file's counts."""
    counts = dict.fromkeys(_COUNT_KEYS, 0)
    counts["questions"] = len(records)
    sizes = [len(r.haystack_sessions) for r in records]
    if sizes:
        counts["sessions_min"], counts["sessions_max"] = min(sizes), max(sizes)
    for record in records:
        writer = _QuestionWriter(file.name, variant, record, events, warnings, counts)
        writer.profile()
        writer.haystack()
        writer.item()
        writer.update_facts()
    return counts


@dataclass
class _QuestionWriter:
    """Emits one question's events in a fixed order, and keeps what its haystack shows for the item."""

    name: str
    variant: _Variant
    record: _RawRecord
    events: list[NewEvent]
    warnings: list[str]
    counts: dict[str, int]
    profile_id: str = ""
    asked_iso: str | None = None
    # original session id -> our ids (several when repeated)
    session_ids: dict[str, list[str]] = field(default_factory=dict)
    has_answer_turns: list[str] = field(default_factory=list)
    user_evidence: list[str] = field(default_factory=list)
    sessions_with_answer: set[str] = field(default_factory=set)
    evidence: list[EvidenceTurn] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.profile_id = f"{self.variant.prefix}:{self.record.question_id}"

    def emit(self, event: DomainEvent, at: str | None = None) -> None:
        self.events.append(NewEvent(event, ACTOR, at))

    def warn(self, text: str) -> None:
        self.warnings.append(f"{self.name} {self.record.question_id}: {text}")

    def profile(self) -> None:
        """The Profile of the question's user; the question's date read (kept as is when not parsed)."""
        record, qid = self.record, self.record.question_id
        self.asked_iso = parse_date(record.question_date)
        if self.asked_iso is None:
            self.counts["dates_unparsed"] += 1
            self.warn(f"question_date {record.question_date!r} not parsed (kept as is)")
        self.emit(
            ProfileCreated(
                profile_id=self.profile_id,
                dataset=self.variant.dataset,
                name=f"LongMemEval {self.variant.key} {qid}",
                description=f"the user of LongMemEval question {qid} ({record.question_type})",
                attributes={
                    "question_id": qid,
                    "question_type": record.question_type,
                    "n_sessions": len(record.haystack_sessions),
                },
            )
        )

    def haystack(self) -> None:
        """Each haystack session (a repeated id gets `@<index>`; dates out of order or after the question are
        counted), with its turns."""
        record, counts = self.record, self.counts
        previous_iso: str | None = None
        for index, (source_id, date, messages) in enumerate(
            zip(record.haystack_session_ids, record.haystack_dates, record.haystack_sessions, strict=True)
        ):
            session_id = f"{self.profile_id}:{source_id}"
            if source_id in self.session_ids:
                session_id = f"{session_id}@{index}"
                counts["duplicate_session_ids"] += 1
                self.warn(f"haystack session {source_id!r} listed again at index {index}; this copy is {session_id!r}")
            self.session_ids.setdefault(source_id, []).append(session_id)
            iso = parse_date(date)
            metadata: dict[str, Any] = {"haystack_index": index}
            if iso is None:
                counts["dates_unparsed"] += 1
                self.warn(f"haystack date {date!r} not parsed (kept as is)")
            else:
                metadata["started_at_iso"] = iso
                if previous_iso is not None and iso < previous_iso:
                    counts["sessions_out_of_date_order"] += 1
                if self.asked_iso is not None and iso > self.asked_iso:
                    counts["sessions_after_question"] += 1
                previous_iso = iso
            self.emit(
                SessionStarted(
                    session_id=session_id,
                    profile_id=self.profile_id,
                    ordinal=index,
                    started_at=date,
                    source_id=source_id,
                    metadata=metadata,
                ),
                iso,
            )
            counts["sessions"] += 1
            for t_index, message in enumerate(messages):
                self._turn(session_id, source_id, index, iso, t_index, message)

    def _turn(
        self, session_id: str, source_id: str, index: int, iso: str | None, t_index: int, message: _RawMessage
    ) -> None:
        """One turn; a has_answer turn is evidence (a user's is a user statement of the evidence)."""
        counts = self.counts
        turn_id = f"{session_id}:{t_index}"
        turn_meta: dict[str, Any] = {}
        if message.has_answer is not None:
            turn_meta["has_answer"] = message.has_answer
        self.emit(
            TurnAppended(
                turn_id=turn_id,
                session_id=session_id,
                ordinal=t_index,
                role=message.role,
                text=message.content,
                metadata=turn_meta,
            ),
            iso,
        )
        counts["turns"] += 1
        counts["user_turns"] += message.role == "user"
        counts["empty_turns"] += not message.content.strip()
        if message.has_answer:
            self.evidence.append(EvidenceTurn(session_id, iso, index, turn_id, message.role, message.content))
            self.has_answer_turns.append(turn_id)
            self.sessions_with_answer.add(source_id)
            counts["has_answer_turns"] += 1
            if message.role == "user":
                self.user_evidence.append(turn_id)
                counts["has_answer_user_turns"] += 1

    def _answer_sessions(self) -> tuple[list[str], list[str], list[str]]:
        """The answer sessions, those missing from the haystack and those without a has_answer turn (each
        counted and warned about, as are has_answer turns outside the answer sessions)."""
        answer_sessions = list(dict.fromkeys(self.record.answer_session_ids))
        missing = [s for s in answer_sessions if s not in self.session_ids]
        without_answer = [s for s in answer_sessions if s in self.session_ids and s not in self.sessions_with_answer]
        outside = sorted(self.sessions_with_answer - set(answer_sessions))
        self.counts["answer_sessions"] += len(answer_sessions)
        self.counts["answer_sessions_missing"] += len(missing)
        self.counts["answer_sessions_without_has_answer"] += len(without_answer)
        self.counts["has_answer_outside_answer_sessions"] += len(outside)
        if missing:
            self.warn(f"answer sessions {missing} are not in the haystack (item metadata `answer_sessions_missing`)")
        if without_answer:
            self.warn(
                f"answer sessions {without_answer} have no has_answer turn "
                "(item metadata `answer_sessions_without_has_answer`)"
            )
        if outside:
            self.warn(f"has_answer turns in sessions {outside} that are not answer sessions")
        return answer_sessions, missing, without_answer

    def item(self) -> None:
        """The question's Item (abstention and multi-session labels, its evidence in metadata) and its one
        Requirement: the has_answer turns and the answer sessions."""
        record, qid, asked_iso = self.record, self.record.question_id, self.asked_iso
        answer_sessions, missing, without_answer = self._answer_sessions()
        abstention = qid.endswith("_abs")
        self.counts["abstention"] += abstention
        labels = ["abstention"] if abstention else []
        if len(answer_sessions) > 1:
            labels.append("multi_session")
        metadata: dict[str, Any] = {
            "question_id": qid,
            "abstention": abstention,
            "answer_session_ids": record.answer_session_ids,
            "has_answer_turn_ids": self.has_answer_turns,
            "evidence_user_turn_ids": self.user_evidence,
            "n_haystack_sessions": len(record.haystack_sessions),
        }
        if asked_iso is not None:
            metadata["asked_at_iso"] = asked_iso
        if missing:
            metadata["answer_sessions_missing"] = missing
        if without_answer:
            metadata["answer_sessions_without_has_answer"] = without_answer
        item_id = f"{self.profile_id}:q"
        answer = record.answer if isinstance(record.answer, str) else str(record.answer)
        self.emit(
            ItemCreated(
                item_id=item_id,
                profile_id=self.profile_id,
                dataset=self.variant.dataset,
                question=record.question,
                reference_answer=answer,
                asked_at=record.question_date,
                question_type=record.question_type,
                labels=labels,
                metadata=metadata,
            ),
            asked_iso,
        )
        self.emit(
            RequirementMapped(
                requirement_id=f"{item_id}:r0",
                item_id=item_id,
                ordinal=0,
                text=f"Evidence for: {record.question}",
                turn_ids=self.has_answer_turns,
                session_ids=[sid for s in answer_sessions for sid in self.session_ids.get(s, [])],
            ),
            asked_iso,
        )

    def update_facts(self) -> None:
        """A knowledge-update question's facts from its evidence turns (ingest/adapters/longmemeval_updates.py)."""
        if self.record.question_type != KNOWLEDGE_UPDATE:
            return
        facts = update_fact_events(self.profile_id, self.evidence)
        for event in facts:
            self.emit(event, self.asked_iso)
        self.counts["update_points"] += max(0, sum(isinstance(e, FactRecorded) for e in facts) - 1)
