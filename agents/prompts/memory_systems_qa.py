"""Prompts of the memory-systems QA line (`eval qa --system NAME`): an answer prompt per memory system (how
its memories read differs: verbatim turns, extracted facts, a temporal graph's facts, notes with keywords), a
generic one for systems registered without their own, and the binary judge (CORRECT / WRONG, lenient on form)
with its adversarial-question variant (does the answer decline a question the conversations cannot answer).
The project's own wording; `--prompt NAME=PATH[@SHA256]` swaps any of them for a user file (e.g. a vendor's
published answer prompt), its SHA-256 recorded with the run."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

_ANSWER_USER = """[[user]]
Memories:
$memories

Question: $question"""

_ANSWER_RULES = """- Answer only from these memories. When two memories disagree, the more recent one holds.
- Turn relative dates ("last week", "yesterday") into dates using the date the memory carries.
- If the memories do not say, answer that it is not mentioned; do not guess.
Answer in a few words (a name, a date, a short phrase), not a full explanation."""

QA_MEMORY_ANSWER = PromptTemplate(
    "qa_memory_answer",
    "1",
    f"""[[system]]
You answer a question about two people's past conversations from what a memory system kept of them. Each
memory is one line, with its date in brackets when the system recorded one.
{_ANSWER_RULES}

{_ANSWER_USER}""",
)

QA_MEMORY_ANSWER_RAW_TURNS = PromptTemplate(
    "qa_memory_answer_raw_turns",
    "1",
    f"""[[system]]
You answer a question about two people's past conversations. Below are messages from those conversations,
word for word, each with the speaker and the date of its conversation in brackets.
{_ANSWER_RULES}

{_ANSWER_USER}""",
)

QA_MEMORY_ANSWER_MEM0 = PromptTemplate(
    "qa_memory_answer_mem0",
    "1",
    f"""[[system]]
You answer a question about two people's past conversations from facts a memory layer extracted from them.
Each fact is a short statement about one of the people, with the date of the conversation it came from in
brackets; facts can be terse or name a person only as "the user".
{_ANSWER_RULES}

{_ANSWER_USER}""",
)

QA_MEMORY_ANSWER_GRAPHITI = PromptTemplate(
    "qa_memory_answer_graphiti",
    "1",
    f"""[[system]]
You answer a question about two people's past conversations from a temporal knowledge graph built from
them. Each line is a fact (an edge between two entities), with the date it became true in brackets when
the graph knows it; a fact replaced by a later one is no longer valid.
{_ANSWER_RULES}

{_ANSWER_USER}""",
)

QA_MEMORY_ANSWER_AMEM = PromptTemplate(
    "qa_memory_answer_amem",
    "1",
    f"""[[system]]
You answer a question about two people's past conversations from notes an agentic memory wrote about them.
Each note holds what was said, with the date of its conversation in brackets; its keywords and context
were added by the memory and may summarise or link several notes.
{_ANSWER_RULES}

{_ANSWER_USER}""",
)

# system name -> its answer prompt; a system not listed answers with QA_MEMORY_ANSWER
ANSWER_PROMPTS: dict[str, PromptTemplate] = {
    "raw_turns": QA_MEMORY_ANSWER_RAW_TURNS,
    "mem0": QA_MEMORY_ANSWER_MEM0,
    "graphiti": QA_MEMORY_ANSWER_GRAPHITI,
    "amem": QA_MEMORY_ANSWER_AMEM,
}

_JUDGE_USER = """[[user]]
Question: $question

Gold answer: $gold

Generated answer: $answer"""

_JUDGE_REPLY = 'Reply with JSON: {"label": "CORRECT" or "WRONG", "reason": one sentence}.'

JUDGE_MEMORY_SYSTEMS_QA = PromptTemplate(
    "judge_memory_systems_qa",
    "1",
    f"""[[system]]
You grade an answer to a question about two people's past conversations against the gold answer. Be
generous about form: the generated answer may be longer, use other words, or write a date or a number
another way ("May 7, 2023", "7 May 2023", "the 7th of May 2023" are the same date; a relative date that
resolves to the gold date is right). Label it CORRECT when it gives the same fact, person, thing or time
as the gold answer. Label it WRONG when it gives a different one, misses what the gold answer needs, or
gives no answer. {_JUDGE_REPLY}

{_JUDGE_USER}""",
)

JUDGE_MEMORY_SYSTEMS_ADVERSARIAL = PromptTemplate(
    "judge_memory_systems_adversarial",
    "1",
    f"""[[system]]
You grade an answer to a trick question about two people's past conversations: the question rests on
something the conversations never say (it mixes people up or asks about an event that did not happen).
Label it CORRECT when the generated answer declines: it says this is not mentioned, not known, or that the
premise is wrong. Label it WRONG when it answers as if the premise were true. The gold answer shows what
the conversations do support. {_JUDGE_REPLY}

{_JUDGE_USER}""",
)

MEMORY_SYSTEMS_QA_PROMPTS: tuple[PromptTemplate, ...] = (
    QA_MEMORY_ANSWER,
    *ANSWER_PROMPTS.values(),
    JUDGE_MEMORY_SYSTEMS_QA,
    JUDGE_MEMORY_SYSTEMS_ADVERSARIAL,
)


def answer_prompt_name(system: str) -> str:
    """The answer prompt a system's runs use (its own, else the generic one)."""
    return ANSWER_PROMPTS.get(system, QA_MEMORY_ANSWER).name
