"""LoCoMo (`locomo10.json`) -> the events of conversations, observation facts and QA items (dataset `locomo`).

Mapping (one sample = one profile `locomo:<sample_id>`):

- `session_<n>` (only keys that exist; the `session_<n>_date_time` keys alone do not make a session) ->
  Session `locomo:<sample>:D<n>` (ordinal by n, source_id `session_<n>`, started_at = the original
  `session_<n>_date_time` string, its ISO form in metadata `started_at_iso`; the LLM session summary and the
  human-verified event annotations of the session in metadata `session_summary` / `events`).
- each dialog turn -> Turn `locomo:<sample>:<dia_id>` (ordinal = position in the session). Both speakers are
  people, but a Turn is "user" or "assistant": speaker_a -> role "user", speaker_b -> role "assistant";
  `speaker` keeps the name. Image turns: the BLIP caption is appended to the text (memory systems only see
  text, and several questions ask about shared photos), in the form `caption` names (CAPTION_FORMATS: `bare`
  "<text> <caption>", the form of the dataset's own baselines and the default, or `bracketed`
  "<text> [image: <caption>]"; the result's `settings["locomo_caption"]` names it, and an ingest into a graph
  that holds the same turns in the other form is refused); `blip_caption`, `img_url`,
  `query` (the image search query) and `re-download` stay in turn metadata. Turns carry no time of their
  own: `at` is left empty (the session's started_at is the only time known).
- `observation` facts -> Facts `locomo:<sample>:obs:D<n>:<k>`, private, category "observation", disclosed
  (FactDisclosed) by each of their evidence turns. They are private because they are gold annotations
  (gpt-3.5 extractions checked against the dialog): a method must build its own memory from the turns; a
  baseline that wants LoCoMo's "observation" retrieval database reads the facts explicitly.
- `qa[i]` -> Item `locomo:<sample>:qa:<i>` (question_type = the category "1".."5", its name in metadata
  `category_name`) with one Requirement `<item>:r0`: turn_ids = the evidence turns, session_ids = their
  sessions. Category 5 (adversarial) gets the label `adversarial`; the question has a false premise and is
  meant to be declined (LoCoMo scores it by "not mentioned"/"no information available"), so its reference
  answer is "Not mentioned in the conversation." unless the record gives an `answer`; `adversarial_answer`
  is the trap (the answer about the other speaker) and stays in metadata, never as the reference.

Evidence ids (QA and observations) are repaired, never silently dropped: strings holding several ids are
split on ';', ',' and whitespace, `D:11:26` -> `D11:26`, `D30:05` -> `D30:5`; ids still not matching a turn
(`D`, conv-42 `D10:19`, conv-47 `D4:36`) are reported in warnings and in metadata `unresolved_evidence`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from graph.events import (
    DomainEvent,
    FactDisclosed,
    FactRecorded,
    ItemCreated,
    NewEvent,
    ProfileCreated,
    RequirementMapped,
    SessionStarted,
    TurnAppended,
)
from ingest.adapters import AdapterResult
from ingest.errors import InputError, Problem, problems_from_validation
from ingest.history_dates import LOCOMO_DATE_FORMAT, parse_dataset_date
from ingest.jsonl import load_json

ACTOR = "ingest:locomo"
DATASET = "locomo"
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ADVERSARIAL_REFERENCE = "Not mentioned in the conversation."

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_OBSERVATION_KEY = re.compile(r"^session_(\d+)_observation$")
_DIA_ID = re.compile(r"^D(\d+):(\d+)$")
_LOOSE_DIA_ID = re.compile(r"^D:?0*(\d+):0*(\d+)$")
_SEPARATORS = re.compile(r"[;,\s]+")

_LIST_INDEX = re.compile(r"\.(\d+)(?=\.|$)")


def _field(where: str, loc: str) -> str:
    """`[0].turns` + pydantic's `turns.2.text` style loc -> `[0].turns[2].text`."""
    loc = _LIST_INDEX.sub(r"[\1]", f".{loc}")
    return f"{where}{loc}" if where else loc.lstrip(".")


_TURN_EXTRAS = {
    "blip_caption": "blip_caption",
    "img_url": "img_url",
    "query": "image_query",
    "re-download": "re_download",
}


class _RawTurn(BaseModel):
    model_config = ConfigDict(extra="allow")
    speaker: str
    dia_id: str
    text: str
    blip_caption: str | None = None


class _RawQA(BaseModel):
    model_config = ConfigDict(extra="allow")
    question: str
    answer: str | int | float | None = None
    adversarial_answer: str | int | float | None = None
    evidence: list[str]
    category: int


class _RawConversation(BaseModel):
    model_config = ConfigDict(extra="allow")
    speaker_a: str
    speaker_b: str


class _RawSample(BaseModel):
    model_config = ConfigDict(extra="allow")
    sample_id: str
    conversation: dict[str, Any]
    qa: list[dict[str, Any]]
    observation: dict[str, dict[str, list[tuple[str, str | list[str]]]]] = {}
    session_summary: dict[str, Any] = {}
    event_summary: dict[str, Any] = {}


def parse_date(text: str | None) -> str | None:
    """ISO form of a LoCoMo session date ("1:56 pm on 8 May, 2023" -> "2023-05-08T13:56:00"), else None."""
    found = parse_dataset_date(text, LOCOMO_DATE_FORMAT)
    return None if found is None else found.isoformat()


def _validate(model: type[BaseModel], value: Any, file: str, where: str, problems: list[Problem]) -> Any:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        for p in problems_from_validation(file, None, exc):
            problems.append(Problem(p.file, None, _field(where, p.field), p.message))
        return None


@dataclass
class Evidence:
    """Evidence strings resolved against a conversation's dia ids."""

    dia_ids: list[str] = field(default_factory=list)  # existing turns, in order, without repeats
    split: list[tuple[str, list[str]]] = field(default_factory=list)  # a string holding several ids
    normalised: list[tuple[str, str]] = field(default_factory=list)  # e.g. ("D:11:26", "D11:26")
    unresolved: list[str] = field(default_factory=list)  # ids matching no turn

    def repairs(self) -> list[str]:
        return [f"{raw!r} -> {parts}" for raw, parts in self.split] + [
            f"{raw!r} -> {fixed!r}" for raw, fixed in self.normalised
        ]


def resolve_evidence(raw: list[str], known: set[str]) -> Evidence:
    """Split multi-id strings, normalise loose ids, keep the ones naming a turn, report the rest."""
    out = Evidence()
    resolved: dict[str, None] = {}
    for value in raw:
        tokens = [t for t in _SEPARATORS.split(value.strip()) if t]
        if len(tokens) > 1:
            out.split.append((value, tokens))
        if not tokens:
            out.unresolved.append(value)
        for token in tokens:
            if token in known:
                resolved[token] = None
                continue
            match = _LOOSE_DIA_ID.match(token)
            fixed = f"D{int(match.group(1))}:{int(match.group(2))}" if match else None
            if fixed is not None and fixed in known:
                out.normalised.append((token, fixed))
                resolved[fixed] = None
            else:
                out.unresolved.append(token)
    out.dia_ids = list(resolved)
    return out


CaptionFormat = Literal["bare", "bracketed"]
CAPTION_FORMATS: tuple[str, ...] = ("bare", "bracketed")
# bare, as LoCoMo's own baselines join them: against bracketed, +5/-9 questions (p=0.42) for the plain HYBRID on
# 383 questions, so the bracketed form is not shown to help (docs/retrieval.md, "The keyword channel").
DEFAULT_CAPTION: CaptionFormat = "bare"


def caption_text(text: str, caption: str, fmt: str) -> str:
    """An image turn's text with its BLIP caption in format `fmt` (bare or bracketed)."""
    shown = caption if fmt == "bare" else f"[image: {caption}]"
    return f"{text} {shown}" if text else shown


def caption_form_of(text: str, caption: str) -> str | None:
    """The format in which `caption` joins `text` (an image turn's stored text), or None if neither form ends
    it (checked bracketed first: a bracketed text also ends with the caption and "]")."""
    if text.endswith(f"[image: {caption}]"):
        return "bracketed"
    if text.endswith(caption):
        return "bare"
    return None


def load_locomo(path: Path, caption: str = DEFAULT_CAPTION) -> AdapterResult:
    """Events of a LoCoMo file (a JSON array of samples); the whole file is validated before any event.
    `caption`: how an image turn's caption joins its text (CAPTION_FORMATS)."""
    path = Path(path)
    file = str(path)
    if not path.is_file():
        raise InputError([Problem(file, None, "(path)", "no such file")])
    if caption not in CAPTION_FORMATS:
        raise InputError(
            [Problem(file, None, "caption", f"unknown caption format {caption!r}; one of {CAPTION_FORMATS}")]
        )
    raw = load_json(path)
    problems: list[Problem] = []
    if not isinstance(raw, list):
        raise InputError([Problem(file, None, "(root)", "expected a JSON array of samples")])
    samples: list[tuple[str, _RawSample, list[tuple[int, list[_RawTurn]]], list[_RawQA]]] = []
    seen_ids: dict[str, int] = {}
    for index, value in enumerate(raw):
        where = f"[{index}]"
        sample = _validate(_RawSample, value, file, where, problems)
        if sample is None:
            continue
        where = f"[{index}]({sample.sample_id})"
        if sample.sample_id in seen_ids:
            problems.append(
                Problem(
                    file, None, f"{where}.sample_id", f"duplicate sample_id (first at [{seen_ids[sample.sample_id]}])"
                )
            )
            continue
        seen_ids[sample.sample_id] = index
        parsed = _parse_sample(sample, file, where, problems)
        if parsed is not None:
            samples.append((sample.sample_id, sample, *parsed))
    if problems:
        raise InputError(problems)

    events: list[NewEvent] = []
    warnings: list[str] = []
    counts = {
        "conversations": len(samples),
        "sessions": 0,
        "turns": 0,
        "image_turns": 0,
        "captioned_turns": 0,
        "observations": 0,
        "fact_disclosures": 0,
        "observation_evidence_repaired": 0,
        "observations_without_evidence_turn": 0,
        "qa": 0,
        "evidence_ids": 0,
        "evidence_strings_malformed": 0,
        "evidence_strings_split": 0,
        "evidence_ids_normalised": 0,
        "evidence_ids_unresolved": 0,
        "qa_without_evidence_turn": 0,
        "dates_unparsed": 0,
    }
    counts.update({f"category_{c}": 0 for c in CATEGORY_NAMES})
    for sample_id, sample, sessions, qas in samples:
        _sample_events(sample_id, sample, sessions, qas, events, warnings, counts, caption)
    return AdapterResult(DATASET, events, counts, warnings, settings={"locomo_caption": caption})


def _parse_sample(
    sample: _RawSample, file: str, where: str, problems: list[Problem]
) -> tuple[list[tuple[int, list[_RawTurn]]], list[_RawQA]] | None:
    n_before = len(problems)
    conv = _validate(_RawConversation, sample.conversation, file, f"{where}.conversation", problems)
    if conv is None:
        return None
    speakers = {conv.speaker_a, conv.speaker_b}
    sessions: list[tuple[int, list[_RawTurn]]] = []
    dia_ids: dict[str, str] = {}
    for key, value in sample.conversation.items():
        match = _SESSION_KEY.match(key)
        if match is None:
            continue
        s_where = f"{where}.conversation.{key}"
        if not isinstance(value, list):
            problems.append(Problem(file, None, s_where, "expected a list of turns"))
            continue
        turns: list[_RawTurn] = []
        for t_index, raw_turn in enumerate(value):
            t_where = f"{s_where}[{t_index}]"
            turn = _validate(_RawTurn, raw_turn, file, t_where, problems)
            if turn is None:
                continue
            if not _DIA_ID.match(turn.dia_id):
                problems.append(
                    Problem(file, None, f"{t_where}.dia_id", f"expected 'D<session>:<turn>', got {turn.dia_id!r}")
                )
            elif turn.dia_id in dia_ids:
                problems.append(
                    Problem(
                        file,
                        None,
                        f"{t_where}.dia_id",
                        f"duplicate dia_id {turn.dia_id!r} (first at {dia_ids[turn.dia_id]})",
                    )
                )
            if turn.speaker not in speakers:
                problems.append(
                    Problem(
                        file,
                        None,
                        f"{t_where}.speaker",
                        f"{turn.speaker!r} is neither speaker_a {conv.speaker_a!r} nor speaker_b {conv.speaker_b!r}",
                    )
                )
            dia_ids.setdefault(turn.dia_id, t_where)
            turns.append(turn)
        sessions.append((int(match.group(1)), turns))
    if not sessions:
        problems.append(Problem(file, None, f"{where}.conversation", "no session_<n> key"))
    qas: list[_RawQA] = []
    for q_index, raw_qa in enumerate(sample.qa):
        qa = _validate(_RawQA, raw_qa, file, f"{where}.qa[{q_index}]", problems)
        if qa is None:
            continue
        if qa.category not in CATEGORY_NAMES:
            problems.append(Problem(file, None, f"{where}.qa[{q_index}].category", f"expected 1..5, got {qa.category}"))
        qas.append(qa)
    for key in sample.observation:
        if not _OBSERVATION_KEY.match(key):
            problems.append(Problem(file, None, f"{where}.observation.{key}", "expected session_<n>_observation"))
    if len(problems) > n_before:
        return None
    sessions.sort(key=lambda s: s[0])
    return sessions, qas


def _answer_text(value: str | int | float | None) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _sample_events(
    sample_id: str,
    sample: _RawSample,
    sessions: list[tuple[int, list[_RawTurn]]],
    qas: list[_RawQA],
    events: list[NewEvent],
    warnings: list[str],
    counts: dict[str, int],
    caption: str = DEFAULT_CAPTION,
) -> None:
    """One conversation's events, appended to `events` in log order: the profile, the observations as private
    facts, each session with its turns and the facts they disclose, then an item per question."""
    writer = _SampleWriter(sample_id, sample, sessions, events, warnings, counts, caption)
    writer.profile()
    disclosures = writer.observations()
    for ordinal, (n, turns) in enumerate(sessions):
        writer.session(ordinal, n, turns, disclosures)
    for index, qa in enumerate(qas):
        writer.item(index, qa)


@dataclass
class _SampleWriter:
    """Emits one LoCoMo conversation's events in a fixed order, and adds to the load's counts and warnings."""

    sample_id: str
    sample: _RawSample
    sessions: list[tuple[int, list[_RawTurn]]]
    events: list[NewEvent]
    warnings: list[str]
    counts: dict[str, int]
    caption: str
    profile_id: str = ""
    speaker_a: str = ""
    speaker_b: str = ""
    # the dia_ids of the conversation's turns, and the session each is in
    known: set[str] = field(default_factory=set)
    session_of: dict[str, int] = field(default_factory=dict)
    # session number -> its date as written (anything the file holds), and as ISO 8601 (None: not parsed)
    dates: dict[int, Any] = field(default_factory=dict)
    iso_dates: dict[int, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        conv = self.sample.conversation
        self.speaker_a, self.speaker_b = conv["speaker_a"], conv["speaker_b"]
        self.profile_id = f"locomo:{self.sample_id}"
        self.known = {turn.dia_id for _, turns in self.sessions for turn in turns}
        self.session_of = {turn.dia_id: n for n, turns in self.sessions for turn in turns}
        self.dates = {n: conv.get(f"session_{n}_date_time") for n, _ in self.sessions}
        self.iso_dates = {n: parse_date(d if isinstance(d, str) else None) for n, d in self.dates.items()}

    def emit(self, event: DomainEvent, at: str | None = None) -> None:
        self.events.append(NewEvent(event, ACTOR, at))

    def profile(self) -> None:
        """The Profile of the two speakers (the first is the user)."""
        speaker_a, speaker_b = self.speaker_a, self.speaker_b
        self.emit(
            ProfileCreated(
                profile_id=self.profile_id,
                dataset=DATASET,
                name=f"{speaker_a} & {speaker_b}",
                description=f"LoCoMo conversation {self.sample_id} between {speaker_a} and {speaker_b}",
                attributes={
                    "sample_id": self.sample_id,
                    "speaker_a": speaker_a,
                    "speaker_b": speaker_b,
                    "roles": {speaker_a: "user", speaker_b: "assistant"},
                },
            )
        )

    def observations(self) -> dict[str, list[str]]:
        """A private Fact per observation; returns dia_id -> the facts its turn discloses (emitted after the
        turn's session, once the turn exists)."""
        disclosures: dict[str, list[str]] = {}
        for key, by_speaker in self.sample.observation.items():
            n = int(key.split("_")[1])
            k = 0
            for speaker, observations in by_speaker.items():
                for text, evidence in observations:
                    fact_id = f"{self.profile_id}:obs:D{n}:{k}"
                    k += 1
                    for dia_id in self._observation(fact_id, key, n, speaker, text, evidence):
                        disclosures.setdefault(dia_id, []).append(fact_id)
        return disclosures

    def _observation(self, fact_id: str, key: str, n: int, speaker: str, text: str, evidence: Any) -> list[str]:
        """One observation's Fact, its evidence resolved to turns; returns those turns' dia_ids."""
        raw_evidence = [evidence] if isinstance(evidence, str) else list(evidence)
        found = resolve_evidence(raw_evidence, self.known)
        fact_meta: dict[str, Any] = {
            "speaker": speaker,
            "session": n,
            "evidence": evidence,
            "source": "LoCoMo observation (gpt-3.5)",
        }
        if found.unresolved:
            fact_meta["unresolved_evidence"] = found.unresolved
            self.warnings.append(
                f"{self.sample_id} {key} {speaker}: observation evidence {found.unresolved} matches "
                "no turn (kept in fact metadata)"
            )
        if found.split or found.normalised:
            fact_meta["evidence_dia_ids"] = found.dia_ids
            self.counts["observation_evidence_repaired"] += 1
        if not found.dia_ids:
            self.counts["observations_without_evidence_turn"] += 1
        self.emit(
            FactRecorded(
                fact_id=fact_id,
                profile_id=self.profile_id,
                text=text,
                private=True,
                category="observation",
                metadata=fact_meta,
            )
        )
        self.counts["observations"] += 1
        return found.dia_ids

    def session(self, ordinal: int, n: int, turns: list[_RawTurn], disclosures: dict[str, list[str]]) -> None:
        """Session `n` (its date, summaries and annotated events in metadata), its turns, then the facts they
        disclose."""
        sample_id, sample, date, iso_date = self.sample_id, self.sample, self.dates[n], self.iso_dates[n]
        session_id = f"{self.profile_id}:D{n}"
        started_at = date if isinstance(date, str) else None
        session_meta: dict[str, Any] = {}
        if started_at is None:
            self.warnings.append(f"{sample_id}: session_{n} has no session_{n}_date_time")
        elif iso_date is None:
            self.counts["dates_unparsed"] += 1
            self.warnings.append(f"{sample_id}: session_{n}_date_time {started_at!r} not parsed (kept as is)")
        else:
            session_meta["started_at_iso"] = iso_date
        summary = sample.session_summary.get(f"session_{n}_summary")
        if summary:
            session_meta["session_summary"] = summary
        annotated = sample.event_summary.get(f"events_session_{n}")
        if annotated:
            session_meta["events"] = annotated
        if not turns:
            self.warnings.append(f"{sample_id}: session_{n} has no turns")
        self.emit(
            SessionStarted(
                session_id=session_id,
                profile_id=self.profile_id,
                ordinal=ordinal,
                started_at=started_at,
                source_id=f"session_{n}",
                metadata=session_meta,
            ),
            iso_date,
        )
        self.counts["sessions"] += 1
        for t_ordinal, turn in enumerate(turns):
            self._turn(session_id, t_ordinal, turn, iso_date)
        for turn in turns:
            for fact_id in disclosures.get(turn.dia_id, []):
                self.emit(FactDisclosed(fact_id=fact_id, turn_id=f"{self.profile_id}:{turn.dia_id}"), iso_date)
                self.counts["fact_disclosures"] += 1

    def _turn(self, session_id: str, t_ordinal: int, turn: _RawTurn, at: str | None) -> None:
        """One turn: the first speaker's turns are the user's; an image's caption joins the text."""
        raw_turn = turn.model_dump(by_alias=True)
        turn_meta: dict[str, Any] = {"dia_id": turn.dia_id}
        for key, name in _TURN_EXTRAS.items():
            if raw_turn.get(key) is not None:
                turn_meta[name] = raw_turn[key]
        text = turn.text
        if turn.blip_caption:
            text = caption_text(text, turn.blip_caption, self.caption)
            self.counts["captioned_turns"] += 1
        if raw_turn.get("img_url"):
            self.counts["image_turns"] += 1
        self.emit(
            TurnAppended(
                turn_id=f"{self.profile_id}:{turn.dia_id}",
                session_id=session_id,
                ordinal=t_ordinal,
                role="user" if turn.speaker == self.speaker_a else "assistant",
                text=text,
                speaker=turn.speaker,
                metadata=turn_meta,
            ),
            at,
        )
        self.counts["turns"] += 1

    def item(self, index: int, qa: _RawQA) -> None:
        """The question's Item (its reference answer, labels and evidence in metadata) and its one Requirement:
        the evidence turns and their sessions."""
        profile, item_id = self.profile_id, f"{self.profile_id}:qa:{index}"
        found = self._qa_evidence(index, qa)
        dia_ids, unresolved = found.dia_ids, found.unresolved
        session_ids = list(dict.fromkeys(f"{profile}:D{self.session_of[d]}" for d in dia_ids))
        answer = _answer_text(qa.answer)
        item_meta: dict[str, Any] = {
            "qa_index": index,
            "category": qa.category,
            "category_name": CATEGORY_NAMES[qa.category],
            "evidence": qa.evidence,
            "evidence_dia_ids": dia_ids,
        }
        if found.split or found.normalised:
            item_meta["evidence_repairs"] = found.repairs()
        if unresolved:
            item_meta["unresolved_evidence"] = unresolved
        labels: list[str] = []
        if qa.category == 5:
            labels.append("adversarial")
            item_meta["adversarial_answer"] = _answer_text(qa.adversarial_answer)
            if answer is None:
                answer = ADVERSARIAL_REFERENCE
                item_meta["reference_answer_source"] = "abstention"
        if answer is None:
            self.warnings.append(
                f"{self.sample_id} qa[{index}]: no answer (category {qa.category}); reference left empty"
            )
        labels += [
            label
            for label, applies in (
                ("multi_session", len(session_ids) > 1),
                ("multi_evidence", len(dia_ids) > 1),
                ("unresolved_evidence", bool(unresolved)),
            )
            if applies
        ]
        self.emit(
            ItemCreated(
                item_id=item_id,
                profile_id=profile,
                dataset=DATASET,
                question=qa.question,
                reference_answer=answer,
                question_type=str(qa.category),
                labels=labels,
                metadata=item_meta,
            )
        )
        self.emit(
            RequirementMapped(
                requirement_id=f"{item_id}:r0",
                item_id=item_id,
                ordinal=0,
                text=f"Evidence for: {qa.question}",
                turn_ids=[f"{profile}:{d}" for d in dia_ids],
                session_ids=session_ids,
            )
        )

    def _qa_evidence(self, index: int, qa: _RawQA) -> Evidence:
        """The question's evidence resolved to turns, counted, with a warning for each repair and each id that
        matches no turn."""
        counts, sample_id = self.counts, self.sample_id
        found = resolve_evidence(qa.evidence, self.known)
        counts["qa"] += 1
        counts[f"category_{qa.category}"] += 1
        counts["evidence_ids"] += len(found.dia_ids)
        counts["evidence_strings_malformed"] += sum(1 for e in qa.evidence if e not in self.known)
        counts["evidence_strings_split"] += len(found.split)
        counts["evidence_ids_normalised"] += len(found.normalised)
        counts["evidence_ids_unresolved"] += len(found.unresolved)
        if found.repairs():
            self.warnings.append(f"{sample_id} qa[{index}]: evidence repaired: " + ", ".join(found.repairs()))
        if found.unresolved:
            self.warnings.append(
                f"{sample_id} qa[{index}]: evidence {found.unresolved} matches no turn of {sample_id} "
                "(kept in item metadata `unresolved_evidence`)"
            )
        if not found.dia_ids:
            counts["qa_without_evidence_turn"] += 1
        return found
