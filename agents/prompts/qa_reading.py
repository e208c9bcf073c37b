"""Prompts of the LongMemEval reading line: the reader (direct, or Chain-of-Note: a note per session first,
then the answer), the fact extractor used for key expansion and the time-range reader of time-aware query
expansion (`--time-aware llm`). The project's own wording."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

QA_READER_DIRECT = PromptTemplate(
    "qa_reader_direct",
    "1",
    """[[system]]
You are a chat assistant with a memory of your earlier conversations with this user. Below are some of those
conversations as JSON: one object per conversation, each with the date it took place and its messages in
order. Answer the user's question from them.
- Work out dates from the conversation dates and from what the messages say; the question's own date is
  given, so "how long ago" and "how many days" questions can be counted.
- When something was said more than once with different values, the most recent conversation is the one
  that holds.
- If the conversations do not contain what the question needs, say plainly that the information is not in
  our past conversations instead of guessing.
Give the answer in one or two sentences.

[[user]]
Our past conversations:
$history

Today is $asked_at. My question: $question""",
)

QA_READER_NOTES = PromptTemplate(
    "qa_reader_chain_of_note",
    "1",
    """[[system]]
You are a chat assistant with a memory of your earlier conversations with this user. Below are some of those
conversations as JSON: one object per conversation, with its index, the date it took place and its messages.
First read each conversation and write one short note for it: what it says that bears on the user's
question, with its date, or "nothing relevant". Then answer the question from your notes.
- Work out dates from the conversation dates and from what the messages say; today's date is given.
- When a value changed over time, the most recent conversation holds.
- If the notes do not contain what the question needs, answer that the information is not in our past
  conversations instead of guessing.
Reply with JSON: {"notes": [{"conversation": index, "note": text}, ...], "answer": text}.

[[user]]
Our past conversations:
$history

Today is $asked_at. My question: $question""",
)

QA_FACTS = PromptTemplate(
    "qa_key_facts",
    "1",
    """[[system]]
You index a conversation for later search. List the facts about the user that this piece of conversation
states or clearly implies (events, plans, possessions, preferences, numbers, people, places), each as one
short self-contained sentence in the third person ("The user ..."). Include facts the assistant told the
user when the user asked for them. Reply with JSON: {"facts": [text, ...]}; an empty list when there is none.

[[user]]
Conversation of $date:
$conversation""",
)

QA_TIME_RANGE = PromptTemplate(
    "qa_time_range",
    "1",
    """[[system]]
You narrow a search through a user's past conversations with a chat assistant. Every conversation is stored
with the date it took place. Given a question the user asks today and today's date, decide whether the
question points at a period of time, and if it does, on which dates the conversations that can answer it
were held.
- Count relative expressions back from today's date: "yesterday", "three weeks ago", "last month", "in the
  past two months", "this year", "in March", "on the 4th of July", "the weekend before last".
- People mention an event on the day it happens or in the days after, and "three weeks ago" is seldom
  exact: widen the range by a few days for an approximate expression, and by more for a longer span. A range
  that is too narrow loses the answer; one that is somewhat too wide costs little.
- The range never ends after today.
- A question that asks when something happened or how long ago, without naming a period ("How many days
  ago did I ...?", "Which did I do first?"), points at no period: the event may lie anywhere in the history.
  Neither does a question about the current or latest value of something.
Reply with JSON only: {"has_range": true, "start": "YYYY-MM-DD", "end": "YYYY-MM-DD", "reason": text}, or
{"has_range": false, "start": null, "end": null, "reason": text} when the question points at no period.
The reason is one short sentence naming the expression you read.

[[user]]
Today is $asked_at.
Question: $question""",
)

QA_PROMPTS = (QA_READER_DIRECT, QA_READER_NOTES, QA_FACTS, QA_TIME_RANGE)
