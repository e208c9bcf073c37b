"""Records of the ColaBench bundle format. `./colabench schema` prints their JSON Schema.

A bundle is a folder (or .tar.gz of one) holding `bundle.json` (the manifest) and JSONL files:
documents, doc_links, profiles, facts, topics, sessions (turns inline), items (requirements inline).
Document lines are text.split('\\n'), numbered from 1; line ranges are inclusive.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from graph.json_values import require_json_value
from ingest.limits import require_document_text, require_identifier, require_text, require_timestamp

RECORD_KINDS = ("documents", "doc_links", "profiles", "facts", "topics", "sessions", "items")

# Limits (length, characters) and timestamp syntax shared by `check` and `ingest`; see ingest/limits.py.
Id = Annotated[str, AfterValidator(require_identifier)]
Text = Annotated[str, AfterValidator(require_text)]
Timestamp = Annotated[str, AfterValidator(require_timestamp)]


class Record(BaseModel):
    # strict: a JSON value must already have the field's type ("1.0" or true is not a float, "no" not a bool)
    model_config = ConfigDict(extra="forbid", strict=True)

    @field_validator("*", mode="after")
    @classmethod
    def _survives_canonical_json(cls, value: Any) -> Any:
        # The same check as the event models, here so that a NaN or Infinity is reported at its file and line.
        return require_json_value(value)


class BundleManifest(Record):
    """bundle.json: what the bundle is and where its documents come from."""

    name: str = Field(description="dataset name; items and profiles are tagged with it", pattern=r"^[A-Za-z0-9_.-]+$")
    version: str = "1"
    description: str = ""
    licence: str = ""
    attribution: list[str] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict, description="optional override of file names per record kind")

    @field_validator("files")
    @classmethod
    def _known_kinds(cls, files: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(files) - set(RECORD_KINDS))
        if unknown:
            raise ValueError(f"unknown record kind(s) {unknown}; the kinds are {list(RECORD_KINDS)}")
        for kind, name in files.items():
            if "\x00" in name or len(name) > 1024 or any(len(part) > 255 for part in name.split("/")):
                raise ValueError(f"{kind}: {name[:80]!r} is not a usable file name (a NUL, or too long)")
        return files


class DocumentRecord(Record):
    doc_id: Id = Field(min_length=1)
    title: Text
    text: Annotated[str, AfterValidator(require_document_text)] = Field(min_length=1)
    url: str | None = None
    source: str | None = None
    collection: str | None = None
    publisher: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class DocLinkRecord(Record):
    src: Id
    dst: Id
    description: Text = ""
    weight: float = 1.0


class ProfileRecord(Record):
    profile_id: Id = Field(min_length=1)
    name: str | None = None
    description: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)


class FactRecord(Record):
    fact_id: Id = Field(min_length=1)
    profile_id: Id
    text: Text = Field(min_length=1)
    private: bool = True
    category: str | None = None
    # the fact of the same profile this one replaces (an update point of `eval memory`); optional
    supersedes: Id | None = None


class TopicRecord(Record):
    topic_id: Id = Field(min_length=1)
    profile_id: Id
    title: Text
    intent: Text = ""
    fact_ids: list[Id] = Field(default_factory=list)


class LineSpan(Record):
    doc_id: Id
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> LineSpan:
        if self.end_line < self.start_line:
            raise ValueError(f"end_line {self.end_line} is before start_line {self.start_line}")
        return self


class HistoryToolCall(Record):
    """A tool call of the assistant in the public history; what it returned is exposed to the user side."""

    tool: Literal["search", "read"]
    arguments: dict[str, Any] = Field(default_factory=dict)
    returned: list[LineSpan] = Field(default_factory=list)


class TurnRecord(Record):
    turn_id: Id = Field(min_length=1)
    role: Literal["user", "assistant"]
    text: Text = Field(min_length=1)
    speaker: Text | None = None
    at: Timestamp | None = None
    disclosed_fact_ids: list[Id] = Field(default_factory=list)
    tool_calls: list[HistoryToolCall] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


class SessionRecord(Record):
    session_id: Id = Field(min_length=1)
    profile_id: Id
    topic_id: Id | None = None
    started_at: Timestamp | None = None
    turns: list[TurnRecord] = Field(min_length=1)


class RequirementRecord(Record):
    """e_j = (r_j, U_j, F_j, K_j, a_j)."""

    requirement_id: Id | None = Field(default=None, description="defaults to <item_id>-r<ordinal>")
    text: Text = Field(min_length=1, description="r: what a passing answer must do")
    turn_ids: list[Id] = Field(default_factory=list, description="U: verbatim user statements (user turn ids)")
    fact_ids: list[Id] = Field(default_factory=list, description="F: personal conditions")
    spans: list[LineSpan] = Field(default_factory=list, description="K: knowledge rules as document line spans")
    action: Text | None = Field(default=None, description="a: the required judgment or action")


class VerificationRecord(Record):
    """One gate's verdict on an item (e.g. the History Gate's label, the final verification)."""

    gate: Text = Field(min_length=1)
    verdict: Text = Field(min_length=1)
    details: dict[str, Any] = Field(default_factory=dict)


class AugmentationRecord(Record):
    """Where an augmented item comes from: the initial item and how it was changed."""

    from_item_id: Id
    direction: Text = Field(min_length=1, description="e.g. recombine or replace")
    details: dict[str, Any] = Field(default_factory=dict)


class ItemRecord(Record):
    item_id: Id = Field(min_length=1)
    profile_id: Id
    question: Text = Field(min_length=1)
    reference_answer: Text | None = None
    asked_at: Timestamp | None = None
    question_type: str | None = None
    support_doc_ids: list[Id] = Field(default_factory=list)
    history_doc_ids: list[Id] = Field(default_factory=list)
    batch: str | None = None
    labels: list[str] = Field(default_factory=list)
    requirements: list[RequirementRecord] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    verifications: list[VerificationRecord] = Field(default_factory=list)
    augmented_from: AugmentationRecord | None = None
    admission: Literal["direct", "after_revision"] | None = Field(
        default=None,
        description="how construction admitted the item (App. C.2): accepted directly, or after revision and "
        "re-verification; an augmented item without one takes its source item's",
    )


RECORD_FILES: dict[str, type[Record]] = {
    "documents": DocumentRecord,
    "doc_links": DocLinkRecord,
    "profiles": ProfileRecord,
    "facts": FactRecord,
    "topics": TopicRecord,
    "sessions": SessionRecord,
    "items": ItemRecord,
}


def bundle_json_schema() -> dict[str, Any]:
    """One JSON Schema document describing the manifest and every record kind."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ColaBench bundle",
        "description": __doc__,
        "manifest": BundleManifest.model_json_schema(),
        "records": {name: model.model_json_schema() for name, model in RECORD_FILES.items()},
    }
