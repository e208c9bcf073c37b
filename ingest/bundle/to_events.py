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
from ingest.bundle.models import ItemRecord, LineSpan, SessionRecord, TurnRecord
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


def _new(event: object, at: str | None = None) -> NewEvent:
    """One event to append, caused by the bundle's ingest, that happened at `at` (None: when appended)."""
    return NewEvent(event, ACTOR, at)  # type: ignore[arg-type]


def bundle_events(bundle: Bundle) -> list[NewEvent]:
    """The ordered events that put a checked bundle in the evidence graph: its knowledge, its profiles with their
    facts and topics, its sessions with their turns, its items, and last the links of augmented items."""
    return [
        *_knowledge_events(bundle),
        *_profile_events(bundle),
        *_session_events(bundle),
        *_item_events(bundle),
        *_augmentation_events(bundle),
    ]


def _knowledge_events(bundle: Bundle) -> list[NewEvent]:
    """The documents (with their chunks) and the links between documents."""
    out = [_new(event) for event in documents_events(doc_loc.record.model_dump() for doc_loc in bundle.documents)]
    for link_loc in bundle.doc_links:
        link = link_loc.record
        out.append(
            _new(
                DocumentsLinked(
                    src_doc_id=link.src, dst_doc_id=link.dst, description=link.description, weight=link.weight
                )
            )
        )
    return out


def _profile_events(bundle: Bundle) -> list[NewEvent]:
    """The profiles (tagged with the bundle's name), then the facts, then the planned topics."""
    out: list[NewEvent] = []
    for profile_loc in bundle.profiles:
        p = profile_loc.record
        out.append(
            _new(
                ProfileCreated(
                    profile_id=p.profile_id,
                    dataset=bundle.name,
                    name=p.name,
                    description=p.description,
                    attributes=p.attributes,
                )
            )
        )
    for fact_loc in bundle.facts:
        f = fact_loc.record
        out.append(
            _new(
                FactRecorded(
                    fact_id=f.fact_id,
                    profile_id=f.profile_id,
                    text=f.text,
                    private=f.private,
                    category=f.category,
                    metadata={"supersedes": f.supersedes} if f.supersedes else {},
                )
            )
        )
    for topic_loc in bundle.topics:
        t = topic_loc.record
        out.append(
            _new(
                TopicPlanned(
                    topic_id=t.topic_id, profile_id=t.profile_id, title=t.title, intent=t.intent, fact_ids=t.fact_ids
                )
            )
        )
    return out


def _session_events(bundle: Bundle) -> list[NewEvent]:
    """Each session, numbered in bundle order within its profile, followed by its turns."""
    out: list[NewEvent] = []
    ordinals: dict[str, int] = {}
    for session_loc in bundle.sessions:
        s = session_loc.record
        ordinal = ordinals.get(s.profile_id, 0)
        ordinals[s.profile_id] = ordinal + 1
        out.append(
            _new(
                SessionStarted(
                    session_id=s.session_id,
                    profile_id=s.profile_id,
                    ordinal=ordinal,
                    topic_id=s.topic_id,
                    started_at=s.started_at,
                ),
                s.started_at,
            )
        )
        for index, turn in enumerate(s.turns):
            out.extend(_turn_events(s, index, turn))
    return out


def _turn_events(session: SessionRecord, index: int, turn: TurnRecord) -> list[NewEvent]:
    """One turn (dated by itself, else by its session), the facts it discloses and the documents its tool calls
    exposed."""
    at = turn.at or session.started_at
    out = [
        _new(
            TurnAppended(
                turn_id=turn.turn_id,
                session_id=session.session_id,
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
    ]
    out.extend(_new(FactDisclosed(fact_id=fid, turn_id=turn.turn_id), at) for fid in turn.disclosed_fact_ids)
    out.extend(_new(exposed, at) for exposed in exposures(turn.turn_id, turn.tool_calls))
    return out


def _item_events(bundle: Bundle) -> list[NewEvent]:
    """Each item (tagged with the bundle's name), followed by its requirements and its verifications."""
    out: list[NewEvent] = []
    for item_loc in bundle.items:
        item = item_loc.record
        out.append(
            _new(
                ItemCreated(
                    item_id=item.item_id,
                    profile_id=item.profile_id,
                    dataset=bundle.name,
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
        )
        out.extend(_requirement_events(item))
        out.extend(
            _new(
                ItemVerified(
                    item_id=item.item_id,
                    gate=verification.gate,
                    verdict=verification.verdict,
                    details=verification.details,
                ),
                item.asked_at,
            )
            for verification in item.verifications
        )
    return out


def _requirement_events(item: ItemRecord) -> list[NewEvent]:
    """The item's requirements in order; one without an id is named <item_id>-r<ordinal>."""
    return [
        _new(
            RequirementMapped(
                requirement_id=req.requirement_id or f"{item.item_id}-r{ordinal}",
                item_id=item.item_id,
                ordinal=ordinal,
                text=req.text,
                turn_ids=req.turn_ids,
                fact_ids=req.fact_ids,
                spans=[KnowledgeSpan(doc_id=s.doc_id, start_line=s.start_line, end_line=s.end_line) for s in req.spans],
                action=req.action,
            ),
            item.asked_at,
        )
        for ordinal, req in enumerate(item.requirements)
    ]


def _augmentation_events(bundle: Bundle) -> list[NewEvent]:
    """After every item: an augmented item names the initial item it was made from."""
    return [
        _new(
            ItemAugmented(
                item_id=item.item_id,
                from_item_id=item.augmented_from.from_item_id,
                direction=item.augmented_from.direction,
                details=item.augmented_from.details,
            ),
            item.asked_at,
        )
        for item in (item_loc.record for item_loc in bundle.items)
        if item.augmented_from is not None
    ]
