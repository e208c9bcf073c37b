"""The event model: one pydantic class per event type (past tense), plus the stored envelope.

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

EVENT_TYPES: dict[str, type[DomainEvent]] = {}

Identifier = str


class DomainEvent(BaseModel):
    """Base of every event payload. Subclasses set TYPE; their fields are the payload."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    TYPE: ClassVar[str] = ""

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
        return self.model_dump(mode="json")

    def event_id(self) -> str:
        return content_event_id(self.TYPE, self.payload())


# --- knowledge base -------------------------------------------------------------------------------


class DocumentIngested(DomainEvent):
    """A document of the frozen knowledge base; its lines are text.split('\\n'), numbered from 1."""

    TYPE: ClassVar[str] = "DocumentIngested"
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
    doc_id: Identifier
    chunker: str
    chunks: list[ChunkSpec]


class DocumentsLinked(DomainEvent):
    TYPE: ClassVar[str] = "DocumentsLinked"
    src_doc_id: Identifier
    dst_doc_id: Identifier
    description: str = ""
    weight: float = 1.0


# --- profiles and interaction history --------------------------------------------------------------


class ProfileCreated(DomainEvent):
    TYPE: ClassVar[str] = "ProfileCreated"
    profile_id: Identifier
    dataset: str
    name: str | None = None
    description: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)


class FactRecorded(DomainEvent):
    """A personal condition of a profile (private: hidden from every method)."""

    TYPE: ClassVar[str] = "FactRecorded"
    fact_id: Identifier
    profile_id: Identifier
    text: str
    private: bool = True
    category: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class TopicPlanned(DomainEvent):
    TYPE: ClassVar[str] = "TopicPlanned"
    topic_id: Identifier
    profile_id: Identifier
    title: str
    intent: str = ""
    fact_ids: list[Identifier] = Field(default_factory=list)


class SessionStarted(DomainEvent):
    TYPE: ClassVar[str] = "SessionStarted"
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


class TurnAppended(DomainEvent):
    """One message of a session; `ordinal` orders turns inside the session (NEXT links them)."""

    TYPE: ClassVar[str] = "TurnAppended"
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
    fact_id: Identifier
    turn_id: Identifier


class DocumentExposed(DomainEvent):
    """A document (line range) shown to the user side in a turn, through a search result or a read."""

    TYPE: ClassVar[str] = "DocumentExposed"
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
    item_id: Identifier
    gate: str
    verdict: str
    details: dict[str, Any] = Field(default_factory=dict)


class ItemAugmented(DomainEvent):
    TYPE: ClassVar[str] = "ItemAugmented"
    item_id: Identifier
    from_item_id: Identifier
    direction: str
    details: dict[str, Any] = Field(default_factory=dict)


# --- memory -------------------------------------------------------------------------------------


class MemoryWritten(DomainEvent):
    """A memory system wrote (ADD/UPDATE) or removed (DELETE) a memory card derived from turns."""

    TYPE: ClassVar[str] = "MemoryWritten"
    system: str
    memory_id: Identifier
    profile_id: Identifier
    op: Literal["ADD", "UPDATE", "DELETE"]
    text: str = ""
    source_turn_ids: list[Identifier] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


class MemoryPairProcessed(DomainEvent):
    """A memory system has taken in one public user-assistant pair of a profile's history (in history order).

    Appended in the same transaction as every MemoryWritten the pair caused, so a pair is either wholly in
    the graph or not at all; a resumed build skips the pairs that have this event. `memory_ids` are the
    memories the pair added, updated or deleted; the usage fields are what the pair cost."""

    TYPE: ClassVar[str] = "MemoryPairProcessed"
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
    profile_id: Identifier
    summary_id: Identifier
    system: str
    states: list[StateSpec]
    model: str | None = None
    prompt_sha256: str | None = None


# --- envelope -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewEvent:
    """An event waiting to be appended: payload plus who caused it and when it happened."""

    event: DomainEvent
    actor: str
    occurred_at: str | None = None


class StoredEvent(BaseModel):
    """One record of the log as stored in Neo4j and exported to JSONL."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    event_id: str
    seq: int
    type: str
    occurred_at: str
    recorded_at: str
    actor: str
    payload: dict[str, Any]
    prev_hash: str
    hash: str

    def chained_fields(self) -> dict[str, Any]:
        """The fields covered by the hash chain (everything but the hashes themselves)."""
        return {
            "event_id": self.event_id,
            "seq": self.seq,
            "type": self.type,
            "occurred_at": self.occurred_at,
            "recorded_at": self.recorded_at,
            "actor": self.actor,
            "payload": self.payload,
        }

    def domain_event(self) -> DomainEvent:
        return parse_event(self.type, self.payload)


def parse_event(event_type: str, payload: dict[str, Any]) -> DomainEvent:
    """Validate a payload against its event model; typed errors for unknown types and bad payloads."""
    model = EVENT_TYPES.get(event_type)
    if model is None:
        raise UnknownEventTypeError(f"unknown event type {event_type!r}; known: {', '.join(sorted(EVENT_TYPES))}")
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        raise EventValidationError(f"{event_type}: {exc}") from exc


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


# --- evaluation runs (answering agent, judges) ----------------------------------------------------


class RunStarted(DomainEvent):
    """One method run over a dataset's items, with everything needed to reproduce it (never API keys)."""

    TYPE: ClassVar[str] = "RunStarted"
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


class AnswerGiven(DomainEvent):
    """The final answer of an attempt; turns count every model call, the final answer turn included."""

    TYPE: ClassVar[str] = "AnswerGiven"
    attempt_id: Identifier
    answer: str
    rounds: int = Field(ge=0)
    turns: int = Field(ge=1)
    finish: Literal["answered", "forced_final", "empty"]
    tokens_in: int = Field(ge=0)
    tokens_out: int = Field(ge=0)
    model: str
    prompt_sha256: str
    # `cut_by_length` (the final reply hit max_tokens), `looks_like_tool_call` (a tool call left as text).
    flags: list[str] = Field(default_factory=list)


class AnswerJudged(DomainEvent):
    """A judge's verdict on an attempt: accuracy, one quality dimension, or the error analysis."""

    TYPE: ClassVar[str] = "AnswerJudged"
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


class AttemptFinished(DomainEvent):
    """An attempt ended: `answered`, or `error` when the endpoint failed after every retry (retried on resume)."""

    TYPE: ClassVar[str] = "AttemptFinished"
    attempt_id: Identifier
    status: Literal["answered", "error"]
    rounds: int = Field(default=0, ge=0)
    turns: int = Field(default=0, ge=0)
    tokens_in: int = Field(default=0, ge=0)
    tokens_out: int = Field(default=0, ge=0)
    seconds: float = Field(default=0.0, ge=0)
    error: str | None = None
    usage: dict[str, Any] = Field(default_factory=dict)


class RunFinished(DomainEvent):
    """A run's pass over its items ended; `incomplete` when some attempts or judgments are still missing."""

    TYPE: ClassVar[str] = "RunFinished"
    run_id: Identifier
    status: Literal["finished", "incomplete"]
    counts: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)


class EndpointFailed(DomainEvent):
    """An LLM role's request failed for a run after every retry, with the error text: the answerer or a judge
    on one attempt, or a prerequisite of the run's attempts for one profile (`state_summary`, `memory:<system>`).
    `retryable` is False when the endpoint refused the request (a rerun would be refused again)."""

    TYPE: ClassVar[str] = "EndpointFailed"
    failure_id: Identifier
    run_id: Identifier
    attempt_id: Identifier | None = None
    profile_id: Identifier | None = None
    role: str
    stage: str
    error: str
    retryable: bool = True
