"""A checked bundle -> the ordered events that put it in the evidence graph."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

from graph.events import (
    DocumentExposed,
    DocumentsLinked,
    FactDisclosed,
    FactRecorded,
    ItemAugmented,
    ItemCreated,
    ItemVerified,
    KnowledgeSpan,
    NewEvent,
    ProfileCreated,
    RequirementMapped,
    SessionStarted,
    ToolCallRecord,
    TopicPlanned,
    TurnAppended,
)
from ingest.bundle.models import LineSpan
from ingest.bundle.reader import Bundle
from ingest.documents import documents_events

ACTOR = "ingest:bundle"


class ToolCallLike(Protocol):
    """A tool call of the public history as a bundle or an appended turn states it."""

    @property
    def tool(self) -> Literal["search", "read"]: ...

    @property
    def arguments(self) -> dict[str, Any]: ...

    @property
    def returned(self) -> Sequence[LineSpan]: ...


def tool_call_records(calls: Sequence[ToolCallLike]) -> list[ToolCallRecord]:
    """The tool calls as a TurnAppended event records them."""
    return [
        ToolCallRecord(tool=c.tool, arguments=c.arguments, returned_doc_ids=[r.doc_id for r in c.returned])
        for c in calls
    ]


def exposures(turn_id: str, calls: Sequence[ToolCallLike]) -> list[DocumentExposed]:
    """One DocumentExposed per returned span: via the tool; a search also records its query and the rank."""
    out = []
    for call in calls:
        query = call.arguments.get("query") if call.tool == "search" else None
        for rank, span in enumerate(call.returned, start=1):
            out.append(
                DocumentExposed(
                    turn_id=turn_id,
                    doc_id=span.doc_id,
                    via=call.tool,
                    start_line=span.start_line,
                    end_line=span.end_line,
                    query=str(query) if query is not None else None,
                    rank=rank if call.tool == "search" else None,
                )
            )
    return out


def bundle_events(bundle: Bundle) -> list[NewEvent]:
    name = bundle.name
    out: list[NewEvent] = []

    def emit(event: object, at: str | None = None) -> None:
        out.append(NewEvent(event, ACTOR, at))  # type: ignore[arg-type]

    for event in documents_events(doc_loc.record.model_dump() for doc_loc in bundle.documents):
        emit(event)
    for link_loc in bundle.doc_links:
        link = link_loc.record
        emit(
            DocumentsLinked(src_doc_id=link.src, dst_doc_id=link.dst, description=link.description, weight=link.weight)
        )
    for profile_loc in bundle.profiles:
        p = profile_loc.record
        emit(
            ProfileCreated(
                profile_id=p.profile_id, dataset=name, name=p.name, description=p.description, attributes=p.attributes
            )
        )
    for fact_loc in bundle.facts:
        f = fact_loc.record
        emit(
            FactRecorded(
                fact_id=f.fact_id,
                profile_id=f.profile_id,
                text=f.text,
                private=f.private,
                category=f.category,
                metadata={"supersedes": f.supersedes} if f.supersedes else {},
            )
        )
    for topic_loc in bundle.topics:
        t = topic_loc.record
        emit(
            TopicPlanned(
                topic_id=t.topic_id, profile_id=t.profile_id, title=t.title, intent=t.intent, fact_ids=t.fact_ids
            )
        )
    ordinals: dict[str, int] = {}
    for session_loc in bundle.sessions:
        s = session_loc.record
        ordinal = ordinals.get(s.profile_id, 0)
        ordinals[s.profile_id] = ordinal + 1
        emit(
            SessionStarted(
                session_id=s.session_id,
                profile_id=s.profile_id,
                ordinal=ordinal,
                topic_id=s.topic_id,
                started_at=s.started_at,
            ),
            s.started_at,
        )
        for index, turn in enumerate(s.turns):
            at = turn.at or s.started_at
            emit(
                TurnAppended(
                    turn_id=turn.turn_id,
                    session_id=s.session_id,
                    ordinal=index,
                    role=turn.role,
                    text=turn.text,
                    speaker=turn.speaker,
                    at=turn.at,
                    tool_calls=tool_call_records(turn.tool_calls),
                    metadata=turn.metadata,
                ),
                at,
            )
            for fid in turn.disclosed_fact_ids:
                emit(FactDisclosed(fact_id=fid, turn_id=turn.turn_id), at)
            for exposed in exposures(turn.turn_id, turn.tool_calls):
                emit(exposed, at)
    for item_loc in bundle.items:
        item = item_loc.record
        emit(
            ItemCreated(
                item_id=item.item_id,
                profile_id=item.profile_id,
                dataset=name,
                question=item.question,
                reference_answer=item.reference_answer,
                asked_at=item.asked_at,
                question_type=item.question_type,
                support_doc_ids=item.support_doc_ids,
                history_doc_ids=item.history_doc_ids,
                batch=item.batch,
                labels=item.labels,
                metadata={**item.metadata, "admission": item.admission} if item.admission else item.metadata,
            ),
            item.asked_at,
        )
        for ordinal, req in enumerate(item.requirements):
            emit(
                RequirementMapped(
                    requirement_id=req.requirement_id or f"{item.item_id}-r{ordinal}",
                    item_id=item.item_id,
                    ordinal=ordinal,
                    text=req.text,
                    turn_ids=req.turn_ids,
                    fact_ids=req.fact_ids,
                    spans=[
                        KnowledgeSpan(doc_id=s.doc_id, start_line=s.start_line, end_line=s.end_line) for s in req.spans
                    ],
                    action=req.action,
                ),
                item.asked_at,
            )
        for verification in item.verifications:
            emit(
                ItemVerified(
                    item_id=item.item_id,
                    gate=verification.gate,
                    verdict=verification.verdict,
                    details=verification.details,
                ),
                item.asked_at,
            )
    # After every item: an augmented item names the initial item it was made from.
    for item_loc in bundle.items:
        item = item_loc.record
        if item.augmented_from is not None:
            emit(
                ItemAugmented(
                    item_id=item.item_id,
                    from_item_id=item.augmented_from.from_item_id,
                    direction=item.augmented_from.direction,
                    details=item.augmented_from.details,
                ),
                item.asked_at,
            )
    return out
