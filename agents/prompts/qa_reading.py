"""Prompts of the LongMemEval reading line: the reader (direct, or Chain-of-Note: a note per session first,
then the answer) and the fact extractor used for key expansion. The project's own wording."""

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

QA_PROMPTS = (QA_READER_DIRECT, QA_READER_NOTES, QA_FACTS)
