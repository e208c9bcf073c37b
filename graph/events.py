"""The event model: one pydantic class per event type (past tense); the stored envelope is graph/stored_event.py.

An event's identity is the hash of its type and payload, so appending the same fact twice is a no-op.
Payload fields name the ids of the things they touch; projections turn them into nodes and relationships.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from graph.errors import EventValidationError, UnknownEventTypeError
from graph.hashing import content_event_id
from graph.json_values import require_json_value
from graph.vocab import STORED, SynthesisStageName

EVENT_TYPES: dict[str, type[DomainEvent]] = {}

Identifier = str


class DomainEvent(BaseModel):
    """Base of every event payload. Subclasses set TYPE; their fields are the payload."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    TYPE: ClassVar[str] = ""
    # The payload's schema version. Bump it when a field is renamed or a type split, and register an upcaster
    # from the old version (graph/upcasting.py): events already in a log keep their stored form (their hashes
    # cover it) and are read as the current version.
    VERSION: ClassVar[int] = 1
    # What the projection (graph/projection.py) needs to know, declared here with the payload:
    # KEY: the payload fields naming the row the event's Cypher applies (joined by KEY_JOIN; its RETURN lists the
    #   same strings); () for an event type that is not projected.
    # CONFLICT: fields of an event that updates what an earlier event of its type made; events with the same
    #   conflict value never share one UNWIND statement.
    # CREATES: the field naming the node it creates (refused when an earlier event of a batch references it).
    # EMBEDS: what it embeds ("chunks": each chunk's text; "memory_text": the memory's text unless deleted).
    KEY: ClassVar[tuple[str, ...]] = ()
    KEY_JOIN: ClassVar[str] = "|"
    CONFLICT: ClassVar[tuple[str, ...]] = ()
    CREATES: ClassVar[str | None] = None
    EMBEDS: ClassVar[str | None] = None
    # Fields added after events of the type were written: left out of the payload at this value, so events
    # that do not use them keep the payload (and id) they had before the field existed.
    OMIT_AT_DEFAULT: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.TYPE:
            EVENT_TYPES[cls.TYPE] = cls

    @field_validator("*", mode="after")
    @classmethod
    def _survives_canonical_json(cls, value: Any) -> Any:
        # The payload is hashed and stored as canonical JSON: refuse NaN, Infinity and anything else that
        # would come back changed, so the log and the live projection can never disagree.
        return require_json_value(value)

    def payload(self) -> dict[str, Any]:
        payload = self.model_dump(mode="json")
        # `exchange` (the LLM request and reply an event came from) is left out when there is none, so events
        # without one keep the payload, and the id, they had before the field existed.
        if "exchange" in payload and payload["exchange"] is None:
            del payload["exchange"]
        # Fields added later with an "absent" default are left out at that default for the same reason.
        for name, absent in self.OMIT_AT_DEFAULT.items():
            if name in payload and payload[name] == absent:
                del payload[name]
        return payload

    def event_id(self) -> str:
        return content_event_id(self.TYPE, self.payload())

    @classmethod
    def json_fields(cls) -> dict[str, dict[str, Any]]:
        """The JSON fields this event type's payload carries, declared from its model: per field its JSON schema
        (type, enum...), whether every payload has it (`required`), and when it is left out (`omitted_when`: the
        value at which `payload()` drops it, so older payloads keep their ids)."""
        schema = cls.model_json_schema(mode="serialization")
        properties: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        out: dict[str, dict[str, Any]] = {}
        definitions: dict[str, Any] = schema.get("$defs", {})
        for name, spec in properties.items():
            if isinstance(spec.get("$ref"), str):  # a nested model: its schema inline
                nested = definitions.get(spec["$ref"].rsplit("/", 1)[-1], {})
                spec = {**nested, **{k: v for k, v in spec.items() if k != "$ref"}}
            entry: dict[str, Any] = {
                key: value for key, value in spec.items() if key not in ("title", "default", "description")
            }
            omitted = name == "exchange" or name in cls.OMIT_AT_DEFAULT
            entry["required"] = name in required and not omitted
            if omitted:
                entry["omitted_when"] = None if name == "exchange" else cls.OMIT_AT_DEFAULT[name]
            out[name] = entry
        return out



# --- ingest bookkeeping -----------------------------------------------------------------------------


class IngestStarted(DomainEvent):
    """An ingest of one input began: its id derives from every event of the input, so a resumed ingest of the
    same input is the same ingest (this event is then a duplicate, skipped)."""

    TYPE: ClassVar[str] = "IngestStarted"
    KEY: ClassVar[tuple[str, ...]] = ("ingest_id",)
    ingest_id: Identifier
    dataset: str
    n_events: int = Field(ge=0)


class IngestCompleted(DomainEvent):
    """Every event of the ingest is in the log; until this event the graph says the ingest is incomplete."""

    TYPE: ClassVar[str] = "IngestCompleted"
    KEY: ClassVar[tuple[str, ...]] = ("ingest_id",)
    ingest_id: Identifier

# --- knowledge base -------------------------------------------------------------------------------


class DocumentIngested(DomainEvent):
    """A document of the frozen knowledge base; its lines are text.split('\\n'), numbered from 1."""

    TYPE: ClassVar[str] = "DocumentIngested"
    KEY: ClassVar[tuple[str, ...]] = ("doc_id",)
    CREATES: ClassVar[str | None] = "doc_id"
    doc_id: Identifier
    title: str
    text: str
    url: str | None = None
    source: str | None = None
    collection: str | None = None
    publisher: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class ChunkSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    chunk_id: Identifier
    ordinal: int = Field(ge=0)
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    start_char: int = Field(ge=0)
    end_char: int = Field(ge=0)
    text: str


class DocumentChunked(DomainEvent):
    """A document cut into line-addressed chunks (the units of the vector and full-text indexes)."""

    TYPE: ClassVar[str] = "DocumentChunked"
    KEY: ClassVar[tuple[str, ...]] = ("doc_id",)
    EMBEDS: ClassVar[str | None] = "chunks"
    doc_id: Identifier
    chunker: str
    chunks: list[ChunkSpec]


class DocumentsLinked(DomainEvent):
    TYPE: ClassVar[str] = "DocumentsLinked"
    KEY: ClassVar[tuple[str, ...]] = ("src_doc_id", "dst_doc_id")
    KEY_JOIN: ClassVar[str] = "->"
    src_doc_id: Identifier
    dst_doc_id: Identifier
    description: str = ""
    weight: float = 1.0


# --- profiles and interaction history --------------------------------------------------------------


class ProfileCreated(DomainEvent):
    TYPE: ClassVar[str] = "ProfileCreated"
    KEY: ClassVar[tuple[str, ...]] = ("profile_id",)
    CREATES: ClassVar[str | None] = "profile_id"
    profile_id: Identifier
    dataset: str
    name: str | None = None
    description: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)


class FactRecorded(DomainEvent):
    """A personal condition of a profile (private: hidden from every method)."""

    TYPE: ClassVar[str] = "FactRecorded"
    KEY: ClassVar[tuple[str, ...]] = ("fact_id",)
    CREATES: ClassVar[str | None] = "fact_id"
    fact_id: Identifier
    profile_id: Identifier
    text: str
    private: bool = True
    category: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class TopicPlanned(DomainEvent):
    TYPE: ClassVar[str] = "TopicPlanned"
    KEY: ClassVar[tuple[str, ...]] = ("topic_id",)
    CREATES: ClassVar[str | None] = "topic_id"
    topic_id: Identifier
    profile_id: Identifier
    title: str
    intent: str = ""
    fact_ids: list[Identifier] = Field(default_factory=list)


class SessionStarted(DomainEvent):
    TYPE: ClassVar[str] = "SessionStarted"
    KEY: ClassVar[tuple[str, ...]] = ("session_id",)
    CREATES: ClassVar[str | None] = "session_id"
    session_id: Identifier
    profile_id: Identifier
    ordinal: int = Field(ge=0)
    topic_id: Identifier | None = None
    started_at: str | None = None
    source_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class ToolCallRecord(BaseModel):
    """A tool call the assistant made inside the public history (search or read)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    returned_doc_ids: list[Identifier] = Field(default_factory=list)


# TurnAppended.metadata key naming the item whose reference answer is this turn's text (iKAT: the canonical
# response of turn n is item n's answer and public history of turn n+1): the turn's text is gold by the record.
REFERENCE_ANSWER_OF = "reference_answer_of"


class TurnAppended(DomainEvent):
    """One message of a session; `ordinal` orders turns inside the session (NEXT links them). A turn whose
    `metadata[REFERENCE_ANSWER_OF]` names an item states that item's reference answer: its text is gold."""

    TYPE: ClassVar[str] = "TurnAppended"
    KEY: ClassVar[tuple[str, ...]] = ("turn_id",)
    CREATES: ClassVar[str | None] = "turn_id"
    turn_id: Identifier
    session_id: Identifier
    ordinal: int = Field(ge=0)
    role: Literal["user", "assistant"]
    text: str
    speaker: str | None = None
    at: str | None = None
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


class FactDisclosed(DomainEvent):
    TYPE: ClassVar[str] = "FactDisclosed"
    KEY: ClassVar[tuple[str, ...]] = ("fact_id", "turn_id")
    KEY_JOIN: ClassVar[str] = "@"
    fact_id: Identifier
    turn_id: Identifier


class DocumentExposed(DomainEvent):
    """A document (line range) shown to the user side in a turn, through a search result or a read."""

    TYPE: ClassVar[str] = "DocumentExposed"
    KEY: ClassVar[tuple[str, ...]] = ("doc_id", "turn_id")
    KEY_JOIN: ClassVar[str] = "@"
    turn_id: Identifier
    doc_id: Identifier
    via: Literal["search", "read"]
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    query: str | None = None
    rank: int | None = None


# --- benchmark items ------------------------------------------------------------------------------


class ItemCreated(DomainEvent):
    TYPE: ClassVar[str] = "ItemCreated"
    KEY: ClassVar[tuple[str, ...]] = ("item_id",)
    CREATES: ClassVar[str | None] = "item_id"
    item_id: Identifier
    profile_id: Identifier
    dataset: str
    question: str
    reference_answer: str | None = None
    asked_at: str | None = None
    question_type: str | None = None
    support_doc_ids: list[Identifier] = Field(default_factory=list)
    history_doc_ids: list[Identifier] = Field(default_factory=list)
    batch: str | None = None
    labels: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


class KnowledgeSpan(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    doc_id: Identifier
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)


class RequirementMapped(DomainEvent):
    """Answer requirement e = (r, U, F, K, a): text, user statements, facts, knowledge spans, action."""

    TYPE: ClassVar[str] = "RequirementMapped"
    KEY: ClassVar[tuple[str, ...]] = ("requirement_id",)
    CREATES: ClassVar[str | None] = "requirement_id"
    requirement_id: Identifier
    item_id: Identifier
    ordinal: int = Field(ge=0)
    text: str
    turn_ids: list[Identifier] = Field(default_factory=list)
    fact_ids: list[Identifier] = Field(default_factory=list)
    session_ids: list[Identifier] = Field(default_factory=list)
    spans: list[KnowledgeSpan] = Field(default_factory=list)
    action: str | None = None


class ItemVerified(DomainEvent):
    TYPE: ClassVar[str] = "ItemVerified"
    KEY: ClassVar[tuple[str, ...]] = ("item_id",)
    # Several gates verify one item; each appends to the item's list, so they never share a statement.
    CONFLICT: ClassVar[tuple[str, ...]] = ("item_id",)
    item_id: Identifier
    gate: str
    verdict: str
    details: dict[str, Any] = Field(default_factory=dict)


class ItemAugmented(DomainEvent):
    TYPE: ClassVar[str] = "ItemAugmented"
    KEY: ClassVar[tuple[str, ...]] = ("item_id",)
    item_id: Identifier
    from_item_id: Identifier
    direction: str
    details: dict[str, Any] = Field(default_factory=dict)


# --- memory -------------------------------------------------------------------------------------


class MemoryWritten(DomainEvent):
    """A memory system wrote (ADD/UPDATE) or removed (DELETE) a memory card derived from turns."""

    TYPE: ClassVar[str] = "MemoryWritten"
    KEY: ClassVar[tuple[str, ...]] = ("memory_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("memory_id",)
    EMBEDS: ClassVar[str | None] = "memory_text"
    system: str
    memory_id: Identifier
    profile_id: Identifier
    op: Literal["ADD", "UPDATE", "DELETE"]
    text: str = ""
    source_turn_ids: list[Identifier] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    # The LLM exchange (request and reply) this came from: its hash in the exchange store (agents/llm/exchanges.py);
    # absent in events written before exchanges were kept, and when no LLM was asked.
    exchange: str | None = None


class MemoryPairProcessed(DomainEvent):
    """A memory system has taken in one public user-assistant pair of a profile's history (in history order).

    Appended in the same transaction as every MemoryWritten the pair caused, so a pair is either wholly in
    the graph or not at all; a resumed build skips the pairs that have this event. `memory_ids` are the
    memories the pair added, updated or deleted; the usage fields are what the pair cost."""

    TYPE: ClassVar[str] = "MemoryPairProcessed"
    KEY: ClassVar[tuple[str, ...]] = ("system", "pair_id")
    system: str
    profile_id: Identifier
    pair_id: Identifier
    turn_ids: list[Identifier] = Field(min_length=1)
    memory_ids: list[Identifier] = Field(default_factory=list)
    builder: str
    llm_calls: int = Field(default=0, ge=0)
    tokens_in: int = Field(default=0, ge=0)
    tokens_out: int = Field(default=0, ge=0)
    seconds: float = Field(default=0.0, ge=0)
    details: dict[str, Any] = Field(default_factory=dict)


class MemoryLinkSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    doc_id: Identifier
    kind: Literal["neighbor", "history_read"]
    rank: int = Field(ge=1)
    score: float | None = None


class MemoryLinked(DomainEvent):
    """The document links of one memory card (neighbours first, then history reads)."""

    TYPE: ClassVar[str] = "MemoryLinked"
    KEY: ClassVar[tuple[str, ...]] = ("memory_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("memory_id",)
    memory_id: Identifier
    builder: str
    links: list[MemoryLinkSpec]
    unresolved_history_reads: int = 0


class StateSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    state_id: Identifier
    text: str
    concerns: str = ""
    time_context: str = ""
    unresolved: list[str] = Field(default_factory=list)
    source_turn_ids: list[Identifier] = Field(default_factory=list)


class StateSummarized(DomainEvent):
    """The state summary S(H) of a profile's public history (replaces the previous summary)."""

    TYPE: ClassVar[str] = "StateSummarized"
    KEY: ClassVar[tuple[str, ...]] = ("summary_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("profile_id", "system")
    profile_id: Identifier
    summary_id: Identifier
    system: str
    states: list[StateSpec]
    model: str | None = None
    prompt_sha256: str | None = None
    # The LLM exchange (request and reply) this came from: its hash in the exchange store (agents/llm/exchanges.py);
    # absent in events written before exchanges were kept, and when no LLM was asked.
    exchange: str | None = None


# --- envelope -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewEvent:
    """An event waiting to be appended: payload plus who caused it and when it happened."""

    event: DomainEvent
    actor: str
    occurred_at: str | None = None


def event_fields() -> dict[str, dict[str, dict[str, Any]]]:
    """Every event type (sorted) -> the JSON fields it declares (`DomainEvent.json_fields`): the catalogue
    `colabench events fields` prints and an export's payloads follow."""
    return {name: EVENT_TYPES[name].json_fields() for name in sorted(EVENT_TYPES)}


def parse_event(event_type: str, payload: dict[str, Any]) -> DomainEvent:
    """Validate a payload against its event model; typed errors for unknown types and bad payloads."""
    model = EVENT_TYPES.get(event_type)
    if model is None:
        raise UnknownEventTypeError(f"unknown event type {event_type!r}; known: {', '.join(sorted(EVENT_TYPES))}")
    try:
        # read back from the log: a vocabulary word was checked when written (graph/vocab.py)
        return model.model_validate(payload, context={STORED: True})
    except ValidationError as exc:
        raise EventValidationError(f"{event_type}: {exc}") from exc


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def normal_utc(moment: datetime) -> str:
    """One spelling per UTC instant (`Z`, `+00:00`, `20260105T100000Z` ... all give the same text), so an
    event whose payload holds the time gets the same id however the time was written."""
    return moment.astimezone(UTC).isoformat()


# --- the LongMemEval reading line (eval qa: reader answers and their per-type verdicts) ----------------


class QaRunStarted(DomainEvent):
    """One `eval qa` run: a feeding mode and reader over a dataset's questions, with what reproduces it
    (feed, recipe, k, granularity, expansions, reader, models, prompt hashes; never API keys). The run id is
    a hash of that configuration, so rerunning the same command resumes the same run."""

    TYPE: ClassVar[str] = "QaRunStarted"
    KEY: ClassVar[tuple[str, ...]] = ("qa_run_id",)
    qa_run_id: Identifier
    dataset: str
    source: str
    item_ids: list[Identifier]
    config: dict[str, Any] = Field(default_factory=dict)
    models: dict[str, Any] = Field(default_factory=dict)
    prompt_hashes: dict[str, Any] = Field(default_factory=dict)


class QaAnswered(DomainEvent):
    """The reader's answer to one question of a QA run, with what it was fed (units and their sessions, in
    feed order) and, in `details`, the retrieval figures of those same units (rag feed), the time range
    used, and timings. `notes` are the reader's Chain-of-Note notes (empty for the direct reader).
    `fed_memory_ids`: the memories of a memory system the answer was given from (the memory-systems line),
    in search order; each resolves to its Memory node and through DERIVED_FROM to the source turns."""

    TYPE: ClassVar[str] = "QaAnswered"
    KEY: ClassVar[tuple[str, ...]] = ("answer_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("answer_id",)
    OMIT_AT_DEFAULT: ClassVar[dict[str, Any]] = {"fed_memory_ids": []}
    answer_id: Identifier
    qa_run_id: Identifier
    item_id: Identifier
    answer: str
    notes: list[str] = Field(default_factory=list)
    fed_unit_ids: list[Identifier] = Field(default_factory=list)
    fed_session_ids: list[Identifier] = Field(default_factory=list)
    fed_memory_ids: list[Identifier] = Field(default_factory=list)
    model: str
    prompt_sha256: str
    tokens_in: int = Field(default=0, ge=0)
    tokens_out: int = Field(default=0, ge=0)
    reader_ms: float = Field(default=0.0, ge=0)
    details: dict[str, Any] = Field(default_factory=dict)
    # The LLM exchange (request and reply) this came from: its hash in the exchange store (agents/llm/exchanges.py);
    # absent in events written before exchanges were kept, and when no LLM was asked.
    exchange: str | None = None


class QaAnswerJudged(DomainEvent):
    """A verdict on a QaAnswered answer under LongMemEval's rule for its question type (`rule`). `rationale`
    is gold (the judge may quote the reference answer) and is redacted like an accuracy judgment's.
    `judge_run`: which of the N independent judge runs of the memory-systems line (J over N runs) this is."""

    TYPE: ClassVar[str] = "QaAnswerJudged"
    KEY: ClassVar[tuple[str, ...]] = ("judgment_id",)
    # Verdicts on one answer share a statement (its Cypher mirrors the latest of them on the answer); a verdict
    # given again under its id does not.
    CONFLICT: ClassVar[tuple[str, ...]] = ("judgment_id",)
    OMIT_AT_DEFAULT: ClassVar[dict[str, Any]] = {"judge_run": 1}
    judgment_id: Identifier
    answer_id: Identifier
    qa_run_id: Identifier
    item_id: Identifier
    rule: str
    correct: bool
    rationale: str = ""
    valid: bool = True
    judge_model: str
    prompt_name: str
    prompt_sha256: str
    tokens_in: int = Field(default=0, ge=0)
    tokens_out: int = Field(default=0, ge=0)
    judge_run: int = Field(default=1, ge=1)
    # The LLM exchange (request and reply) this came from: its hash in the exchange store (agents/llm/exchanges.py);
    # absent in events written before exchanges were kept, and when no LLM was asked.
    exchange: str | None = None


# --- evaluation runs (answering agent, judges) ----------------------------------------------------


class RunStarted(DomainEvent):
    """One method run over a dataset's items, with everything needed to reproduce it (never API keys)."""

    TYPE: ClassVar[str] = "RunStarted"
    KEY: ClassVar[tuple[str, ...]] = ("run_id",)
    run_id: Identifier
    method: str
    dataset: str
    batch_id: str
    item_ids: list[Identifier]
    config: dict[str, Any] = Field(default_factory=dict)
    models: dict[str, Any] = Field(default_factory=dict)
    prompt_hashes: dict[str, Any] = Field(default_factory=dict)
    seeds: dict[str, Any] = Field(default_factory=dict)
    versions: dict[str, Any] = Field(default_factory=dict)
    dataset_fingerprint: str
    dataset_head_seq: int = Field(ge=0)


class AttemptStarted(DomainEvent):
    """One item under one run; the attempt id is `<run_id>:<item_id>`."""

    TYPE: ClassVar[str] = "AttemptStarted"
    KEY: ClassVar[tuple[str, ...]] = ("attempt_id",)
    attempt_id: Identifier
    run_id: Identifier
    item_id: Identifier


class ReturnedRef(BaseModel):
    """Something a tool call returned: a document line range, a memory card or a state."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["document", "memory", "state"]
    id: Identifier
    rank: int = Field(ge=1)
    start_line: int | None = Field(default=None, ge=1)
    end_line: int | None = Field(default=None, ge=1)


class ToolCalled(DomainEvent):
    """A tool call of the answering agent, with its arguments, outcome, returned ids and the text it saw."""

    TYPE: ClassVar[str] = "ToolCalled"
    KEY: ClassVar[tuple[str, ...]] = ("tool_call_id",)
    tool_call_id: Identifier
    attempt_id: Identifier
    round: int = Field(ge=1)
    ordinal: int = Field(ge=0)
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    error: str | None = None
    recipe: str | None = None
    returned: list[ReturnedRef] = Field(default_factory=list)
    response: str = ""
    # The LLM exchange (request and reply) this came from: its hash in the exchange store (agents/llm/exchanges.py);
    # absent in events written before exchanges were kept, and when no LLM was asked.
    exchange: str | None = None


class AnswerGiven(DomainEvent):
    """The final answer of an attempt; turns count every model call, the final answer turn included."""

    TYPE: ClassVar[str] = "AnswerGiven"
    KEY: ClassVar[tuple[str, ...]] = ("attempt_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("attempt_id",)
    attempt_id: Identifier
    answer: str
    rounds: int = Field(ge=0)
    turns: int = Field(ge=1)
    finish: Literal["answered", "forced_final", "empty"]
    tokens_in: int = Field(ge=0)
    tokens_out: int = Field(ge=0)
    model: str
    prompt_sha256: str
    # `cut_by_length` (the final reply hit max_tokens), `looks_like_tool_call` (a tool call left as text),
    # `not_an_answer` (empty, or a JSON fragment that does not parse).
    flags: list[str] = Field(default_factory=list)
    # The LLM exchange (request and reply) this came from: its hash in the exchange store (agents/llm/exchanges.py);
    # absent in events written before exchanges were kept, and when no LLM was asked.
    exchange: str | None = None


class AnswerJudged(DomainEvent):
    """A judge's verdict on an attempt: accuracy, one quality dimension, or the error analysis."""

    TYPE: ClassVar[str] = "AnswerJudged"
    KEY: ClassVar[tuple[str, ...]] = ("judgment_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("attempt_id", "kind")
    judgment_id: Identifier
    attempt_id: Identifier
    kind: str
    verdict: str | None = None
    score: float | None = None
    rationale: str = ""
    error_category: str | None = None
    visibility: str | None = None
    valid: bool = True
    judge_model: str
    prompt_name: str
    prompt_version: str
    prompt_sha256: str
    details: dict[str, Any] = Field(default_factory=dict)
    # The LLM exchange (request and reply) this came from: its hash in the exchange store (agents/llm/exchanges.py);
    # absent in events written before exchanges were kept, and when no LLM was asked.
    exchange: str | None = None


class AttemptFinished(DomainEvent):
    """An attempt was answered (once per attempt). Version 1 also recorded failed tries (`status` `error`);
    those are read as AttemptFailed (graph/upcasting.py)."""

    TYPE: ClassVar[str] = "AttemptFinished"
    VERSION: ClassVar[int] = 2
    KEY: ClassVar[tuple[str, ...]] = ("attempt_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("attempt_id",)
    attempt_id: Identifier
    status: Literal["answered"] = "answered"
    rounds: int = Field(default=0, ge=0)
    turns: int = Field(default=0, ge=0)
    tokens_in: int = Field(default=0, ge=0)
    tokens_out: int = Field(default=0, ge=0)
    seconds: float = Field(default=0.0, ge=0)
    error: str | None = None
    usage: dict[str, Any] = Field(default_factory=dict)


class AttemptFailed(DomainEvent):
    """An attempt's endpoint failed after every retry (the run retries it on resume; a later AttemptFinished
    says it was answered). One per failed try, so an attempt has at most one AttemptFinished."""

    TYPE: ClassVar[str] = "AttemptFailed"
    KEY: ClassVar[tuple[str, ...]] = ("attempt_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("attempt_id",)
    attempt_id: Identifier
    seconds: float = Field(default=0.0, ge=0)
    error: str
    usage: dict[str, Any] = Field(default_factory=dict)


class RunFinished(DomainEvent):
    """Every attempt and judgment of the run is done (once per run). Version 1 also ended passes that left work
    undone (`status` `incomplete`); those are read as RunLeftIncomplete (graph/upcasting.py)."""

    TYPE: ClassVar[str] = "RunFinished"
    VERSION: ClassVar[int] = 2
    KEY: ClassVar[tuple[str, ...]] = ("run_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("run_id",)
    run_id: Identifier
    status: Literal["finished"] = "finished"
    counts: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)


class RunLeftIncomplete(DomainEvent):
    """A pass over the run's items ended with attempts or judgments still missing (a rerun continues it)."""

    TYPE: ClassVar[str] = "RunLeftIncomplete"
    KEY: ClassVar[tuple[str, ...]] = ("run_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("run_id",)
    run_id: Identifier
    counts: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)
    # why the pass stopped early, when something stopped it (e.g. "budget reached: ..."); None: it went through
    reason: str | None = None

    def payload(self) -> dict[str, Any]:
        payload = super().payload()
        if payload.get("reason") is None:  # left out when unset: older events keep their payload and id
            payload.pop("reason", None)
        return payload


class EndpointFailed(DomainEvent):
    """An LLM role's request failed for a run after every retry, with the error text: the answerer or a judge
    on one attempt, or a prerequisite of the run's attempts for one profile (`state_summary`, `memory:<system>`).
    `retryable` is False when the endpoint refused the request (a rerun would be refused again)."""

    TYPE: ClassVar[str] = "EndpointFailed"
    KEY: ClassVar[tuple[str, ...]] = ("failure_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("failure_id",)
    failure_id: Identifier
    run_id: Identifier
    attempt_id: Identifier | None = None
    profile_id: Identifier | None = None
    role: str
    stage: str
    error: str
    retryable: bool = True


# --- run workers (several `run` processes over one batch: claims on attempts, agents/runs/claims.py) --------


class AttemptClaimed(DomainEvent):
    """A worker process took (`claimed`), extended (`renewed`) or gave back (`released`) its claim on one
    attempt; the claim holds until `expires_at` (UTC), after which another worker may take the attempt over.
    Appended only under a guard checked inside the append's transaction (agents/runs/claims.py), so at most one
    worker holds an attempt at a time; the projection keeps each attempt's latest claim."""

    TYPE: ClassVar[str] = "AttemptClaimed"
    KEY: ClassVar[tuple[str, ...]] = ("attempt_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("attempt_id",)
    attempt_id: Identifier
    run_id: Identifier
    item_id: Identifier
    worker: str = Field(min_length=1, max_length=200)
    state: Literal["claimed", "renewed", "released"]
    claimed_at: str
    expires_at: str
    ttl_s: float = Field(gt=0)


# --- synthesis (the ColaBench build pipeline, agents/synthesis/) ------------------------------------


class SynthesisStarted(DomainEvent):
    """A synthesis of dataset `dataset` began (or was resumed with the same settings): its configuration,
    models, prompt hashes and seed. One synthesis per dataset name; a rerun with other settings is refused."""

    TYPE: ClassVar[str] = "SynthesisStarted"
    KEY: ClassVar[tuple[str, ...]] = ("synthesis_id",)
    synthesis_id: Identifier
    dataset: str
    seed: int
    config: dict[str, Any] = Field(default_factory=dict)
    models: dict[str, Any] = Field(default_factory=dict)
    prompt_hashes: dict[str, Any] = Field(default_factory=dict)


class SynthesisDraftRecorded(DomainEvent):
    """One outcome of a synthesis role for a unit of work (`subject`: a profile slot, topic, item...): the
    draft was accepted, sent back for revision, rejected, or dropped after its last revision. `final` marks
    the outcome that closes the unit (a rerun skips closed units). `reasons` say why (a reviewer, a gate or
    a validation problem); for item drafts they may quote the reference answer, so they are gold.
    `summary` holds non-gold facts of the draft (ids, counts, the gate label)."""

    TYPE: ClassVar[str] = "SynthesisDraftRecorded"
    KEY: ClassVar[tuple[str, ...]] = ("draft_id",)
    draft_id: Identifier
    synthesis_id: Identifier
    stage: SynthesisStageName  # a registered stage (agents/synthesis/registry.py, graph/vocab.py)
    role: str
    subject: str
    revision: int = Field(default=0, ge=0)
    outcome: Literal["accepted", "revise", "rejected", "dropped"]
    final: bool = False
    reasons: list[str] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    # The LLM exchange (request and reply) this came from: its hash in the exchange store (agents/llm/exchanges.py);
    # absent in events written before exchanges were kept, and when no LLM was asked.
    exchange: str | None = None


class SynthesisStageFinished(DomainEvent):
    """A synthesis stage ran to its end for this invocation: counts per outcome and gate, and the LLM calls,
    tokens and cost it used (`usage`). A resumed stage appends another one with its own figures."""

    TYPE: ClassVar[str] = "SynthesisStageFinished"
    KEY: ClassVar[tuple[str, ...]] = ("stage_run_id",)
    stage_run_id: Identifier
    synthesis_id: Identifier
    stage: SynthesisStageName  # a registered stage (agents/synthesis/registry.py, graph/vocab.py)
    counts: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)


class WebPageFetched(DomainEvent):
    """The synthesis web role fetched one search result (`url`, found by `query` at `rank` for the seed document
    `seed_doc_id`) at `fetched_at`: what came back (`status`, `content_type`, `n_bytes`) and what became of it
    (`outcome`: document -> the page is the Document `doc_id`, whose DocumentIngested is in the same
    transaction; duplicate -> its text is already the Document `doc_id`; otherwise why it was not kept)."""

    TYPE: ClassVar[str] = "WebPageFetched"
    KEY: ClassVar[tuple[str, ...]] = ("fetch_id",)
    fetch_id: Identifier
    synthesis_id: Identifier
    seed_doc_id: Identifier
    query: str
    rank: int = Field(ge=1)
    url: str
    final_url: str
    fetched_at: str
    outcome: Literal["document", "duplicate", "robots_disallowed", "too_large", "not_html", "no_text", "http_error"]
    status: int | None = None
    content_type: str | None = None
    n_bytes: int = Field(default=0, ge=0)
    doc_id: Identifier | None = None
    reason: str = ""


# --- memory quality (HaluMem-style judging of what a memory system kept) ---------------------------


class MemoryJudged(DomainEvent):
    """A memory judge's verdict on one target of a memory system's memory for a profile: an expected memory
    point (`fact_id`: integrity, update), one extracted memory (`memory_id`: accuracy) or one question of the
    profile answered from the memories (`item_id`: qa; the reader's answer is in `details.answer`). `score` is
    0/1/2 (integrity, accuracy), `category` the update or qa class (correct / hallucination / omission / other),
    `in_gold` whether an extracted memory belongs to the profile's gold facts. `cited_memory_ids` /
    `cited_fact_ids` are what the judge said its verdict rests on. `valid` is False when the judge's reply
    stayed invalid after every retry (the verdict counts in "all" denominators, not in "valid" ones).
    `reason` is gold-like (it quotes the profile's private facts): redacted without the API token."""

    TYPE: ClassVar[str] = "MemoryJudged"
    KEY: ClassVar[tuple[str, ...]] = ("judgment_id",)
    judgment_id: Identifier
    system: str
    profile_id: Identifier
    axis: Literal["integrity", "accuracy", "update", "qa"]
    fact_id: Identifier | None = None
    memory_id: Identifier | None = None
    item_id: Identifier | None = None  # qa: the question (an Item of the profile) answered from the memories
    score: int | None = Field(default=None, ge=0, le=2)
    category: Literal["correct", "hallucination", "omission", "other"] | None = None
    in_gold: bool | None = None
    reason: str = ""
    cited_memory_ids: list[Identifier] = Field(default_factory=list)
    cited_fact_ids: list[Identifier] = Field(default_factory=list)
    valid: bool = True
    judge_model: str
    prompt_name: str
    prompt_version: str
    prompt_sha256: str
    inputs_sha256: str
    details: dict[str, Any] = Field(default_factory=dict)
    # The LLM exchange (request and reply) this came from: its hash in the exchange store (agents/llm/exchanges.py);
    # absent in events written before exchanges were kept, and when no LLM was asked.
    exchange: str | None = None


# --- adjudication (a person's verdict on an accuracy verdict) -------------------------------------


class AnswerAdjudicated(DomainEvent):
    """A person's pass/fail ruling on an attempt's accuracy verdict `judgment_id` (a pending
    needs_adjudication, or a verdict they overrule). The latest adjudication of an attempt wins. `reason` is
    gold (it may quote the reference answer); `adjudicated_at` is given by the caller (ISO 8601, UTC), so the
    same ruling appended twice is one event."""

    TYPE: ClassVar[str] = "AnswerAdjudicated"
    KEY: ClassVar[tuple[str, ...]] = ("adjudication_id",)
    CONFLICT: ClassVar[tuple[str, ...]] = ("attempt_id",)
    adjudication_id: Identifier
    attempt_id: Identifier
    judgment_id: Identifier
    verdict: Literal["pass", "fail"]
    adjudicator: str = Field(min_length=1)
    reason: str = Field(min_length=1)
    adjudicated_at: str

    @field_validator("adjudicated_at")
    @classmethod
    def _iso_utc(cls, value: str) -> str:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError as exc:
            raise ValueError(f"adjudicated_at {value!r} is not an ISO 8601 time") from exc
        offset = parsed.utcoffset()
        if offset is None or offset.total_seconds() != 0:
            raise ValueError(f"adjudicated_at {value!r} must be in UTC (end it with +00:00 or Z)")
        return normal_utc(parsed)
