"""The reader: answers a question from the units a feed gave it, with the history as structured JSON
(one object per conversation: index, date, messages) in date order. `direct` answers at once;
`chain-of-note` writes a note per conversation first and answers from the notes (one structured call)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from agents.llm.client import LLMClient
from agents.prompts.qa_reading import QA_READER_DIRECT, QA_READER_NOTES
from agents.prompts.template import PromptTemplate, render_messages
from agents.qa.history import QaQuestion
from agents.qa.units import HistoryUnit

READERS: tuple[str, ...] = ("direct", "chain-of-note")


class ConversationNote(BaseModel):
    conversation: int
    note: str = Field(max_length=2000)


class ChainOfNoteReply(BaseModel):
    notes: list[ConversationNote] = Field(default_factory=list)
    answer: str


@dataclass
class ReaderResult:
    answer: str
    notes: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    model: str = ""
    prompt: PromptTemplate = QA_READER_DIRECT
    exchange: str | None = None


def reader_prompt(mode: str) -> PromptTemplate:
    return QA_READER_NOTES if mode == "chain-of-note" else QA_READER_DIRECT


def history_json(units: Sequence[HistoryUnit]) -> str:
    """The fed units as JSON conversations in date order (then haystack order); units of one session are
    merged into one conversation, their messages in turn order. No evidence marks, no ids."""
    by_session: dict[str, list[HistoryUnit]] = {}
    for unit in units:
        by_session.setdefault(unit.session_id, []).append(unit)
    sessions = sorted(
        by_session.values(),
        key=lambda us: (us[0].day.isoformat() if us[0].day else "", us[0].started_at or "", us[0].session_ordinal),
    )
    conversations = []
    for index, group in enumerate(sessions, start=1):
        turns = {t.turn_id: t for unit in group for t in unit.turns}
        ordered = sorted(turns.values(), key=lambda t: _turn_order(t.turn_id))
        conversations.append(
            {
                "index": index,
                "date": group[0].started_at or "unknown",
                "messages": [{"role": t.role, "content": t.text} for t in ordered],
            }
        )
    return json.dumps(conversations, ensure_ascii=False, indent=None)


def _turn_order(turn_id: str) -> tuple[int, str]:
    tail = turn_id.rsplit(":", 1)[-1]
    return (int(tail), "") if tail.isdigit() else (0, turn_id)


def read_answer(
    llm: LLMClient,
    question: QaQuestion,
    units: Sequence[HistoryUnit],
    mode: str,
    template: PromptTemplate | None = None,
) -> ReaderResult:
    """The reader's answer (endpoint errors and an invalid Chain-of-Note reply propagate as LLM errors);
    `template` replaces the mode's built-in prompt (`eval qa --prompt`)."""
    template = template or reader_prompt(mode)
    messages = render_messages(
        template,
        history=history_json(units),
        asked_at=question.asked_at or "unknown",
        question=question.question,
    )
    started = time.perf_counter()
    if mode == "chain-of-note":
        reply = llm.structured(messages, ChainOfNoteReply, name="chain_of_note_answer")
        return ReaderResult(
            answer=reply.value.answer.strip(),
            notes=[f"[{n.conversation}] {n.note}" for n in reply.value.notes],
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            seconds=time.perf_counter() - started,
            model=llm.model,
            prompt=template,
            exchange=reply.exchange,
        )
    chat = llm.chat(messages)
    return ReaderResult(
        answer=(chat.content or "").strip(),
        tokens_in=chat.tokens_in,
        tokens_out=chat.tokens_out,
        seconds=time.perf_counter() - started,
        model=llm.model,
        prompt=template,
        exchange=chat.exchange,
    )
