"""A small, hand-written set of events covering every projected event type (used by graph tests)."""

from __future__ import annotations

from graph.events import (
    DocumentExposed,
    DocumentsLinked,
    FactDisclosed,
    FactRecorded,
    ItemAugmented,
    ItemCreated,
    ItemVerified,
    KnowledgeSpan,
    MemoryLinked,
    MemoryLinkSpec,
    MemoryWritten,
    NewEvent,
    ProfileCreated,
    RequirementMapped,
    SessionStarted,
    StateSpec,
    StateSummarized,
    ToolCallRecord,
    TopicPlanned,
    TurnAppended,
)
from ingest.documents import document_events

DOCS = {
    "doc-respite": (
        "Respite grants\nA grant pays for short breaks for carers.\n\nThe carer must live with the person cared for."
    ),
    "doc-kidney": (
        "Kidney disease and travel\nPeople on dialysis should book sessions at the destination.\n"
        "Carry a list of medicines."
    ),
}


def all_type_events() -> list[NewEvent]:
    out: list[NewEvent] = []
    for doc_id, text in DOCS.items():
        for event in document_events({"doc_id": doc_id, "title": text.split("\n")[0], "text": text}):
            out.append(NewEvent(event, "test"))
    plain = [
        DocumentsLinked(src_doc_id="doc-respite", dst_doc_id="doc-kidney", description="both about care", weight=0.4),
        ProfileCreated(profile_id="p1", dataset="unit", name="Ana"),
        FactRecorded(fact_id="f-alone", profile_id="p1", text="lives alone"),
        FactRecorded(fact_id="f-mother", profile_id="p1", text="cares for her mother with dementia"),
        TopicPlanned(topic_id="tp1", profile_id="p1", title="caring", fact_ids=["f-alone", "f-mother"]),
        SessionStarted(session_id="s1", profile_id="p1", ordinal=0, topic_id="tp1", started_at="2026-01-02T10:00:00"),
        TurnAppended(turn_id="t1", session_id="s1", ordinal=0, role="user", text="I look after my mum; I live alone."),
        TurnAppended(
            turn_id="t2",
            session_id="s1",
            ordinal=1,
            role="assistant",
            text="Here is what I found.",
            tool_calls=[
                ToolCallRecord(tool="search", arguments={"query": "kidney travel"}, returned_doc_ids=["doc-kidney"])
            ],
        ),
        FactDisclosed(fact_id="f-alone", turn_id="t1"),
        FactDisclosed(fact_id="f-mother", turn_id="t1"),
        DocumentExposed(
            turn_id="t2", doc_id="doc-kidney", via="search", start_line=1, end_line=2, query="kidney travel", rank=1
        ),
        DocumentExposed(turn_id="t2", doc_id="doc-kidney", via="read", start_line=1, end_line=3),
        ItemCreated(
            item_id="i1",
            profile_id="p1",
            dataset="unit",
            question="Can I get a respite grant?",
            reference_answer="Not while living apart.",
            support_doc_ids=["doc-respite"],
            history_doc_ids=["doc-kidney"],
            labels=["history_dependent", "multi_fact"],
        ),
        RequirementMapped(
            requirement_id="i1-r0",
            item_id="i1",
            ordinal=0,
            text="apply the co-residence rule",
            turn_ids=["t1"],
            fact_ids=["f-alone", "f-mother"],
            session_ids=["s1"],
            spans=[KnowledgeSpan(doc_id="doc-respite", start_line=4, end_line=4)],
            action="say no",
        ),
        ItemCreated(
            item_id="i2", profile_id="p1", dataset="unit", question="And for travel?", support_doc_ids=["doc-respite"]
        ),
        ItemVerified(item_id="i1", gate="history", verdict="history_dependent"),
        ItemAugmented(item_id="i2", from_item_id="i1", direction="recombine"),
        MemoryWritten(
            system="raw_turns",
            memory_id="m1",
            profile_id="p1",
            op="ADD",
            text="I look after my mum",
            source_turn_ids=["t1"],
        ),
        MemoryWritten(
            system="raw_turns",
            memory_id="m1",
            profile_id="p1",
            op="UPDATE",
            text="I look after my mum and live alone",
            source_turn_ids=["t1"],
        ),
        MemoryLinked(
            memory_id="m1",
            builder="unit",
            links=[
                MemoryLinkSpec(doc_id="doc-respite", kind="neighbor", rank=1, score=0.5),
                MemoryLinkSpec(doc_id="doc-kidney", kind="history_read", rank=1),
            ],
        ),
        StateSummarized(
            profile_id="p1",
            summary_id="sum1",
            system="memkb",
            states=[
                StateSpec(state_id="st1", text="cares for mother", concerns="user", source_turn_ids=["t1"]),
            ],
        ),
        StateSummarized(
            profile_id="p1",
            summary_id="sum2",
            system="memkb",
            states=[
                StateSpec(
                    state_id="st2", text="cares for mother, lives alone", concerns="user", source_turn_ids=["t1"]
                ),
            ],
        ),
    ]
    out.extend(NewEvent(event, "test") for event in plain)
    return out
