"""Stage II prompts: the user Simulator (sees its frozen profile, the topic and the public dialogue), the
disclosure checker (one user turn and the facts it claims to reveal) and the Assistant (the public dialogue
only, with kb_search and read over the knowledge base)."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

SYNTH_SIMULATOR = PromptTemplate(
    "synth_simulator",
    "1",
    """[[system]]
You play a real person talking with a personal assistant. Who you are is given as `profile` (your name, a
public description and your private facts, each with an id); what this conversation is about is `topic` (a
title, what you want from it, and the ids of the facts it touches). `dialogue` is the conversation so far:
your messages and what the assistant actually replied.

Write your next message. Speak in the first person, casually, the way people type to an assistant; reveal
personal facts only where they fit naturally, a few at a time, never as a list. React to the assistant's
last reply: if it missed something or raised a new question, follow it up (action "continue"); if it fully
answered, move to another aspect of the topic or another of your concerns (action "switch"); when you have
nothing more to ask, reply with action "end", an empty text and no fact ids (you cannot end before your
first message). `user_turns_left` says how many messages you may still send; `disclosed_so_far` lists the
fact ids you already revealed in this conversation.
List in `disclosed_fact_ids` the ids of the facts that THIS message reveals (ids from `profile.facts` only).
Reply with a JSON object: text, disclosed_fact_ids (list of ids), action ("continue", "switch" or "end").
[[user]]
$view""",
)

SYNTH_DISCLOSURE_CHECK = PromptTemplate(
    "synth_disclosure_check",
    "1",
    """[[system]]
You check a simulated user's message against the personal facts it claims to reveal. For each fact in
`declared`, decide whether a reader of `turn_text` alone would learn that fact (stated or unmistakably
implied; a vague hint is not enough). Judge every declared fact, and no other.
Reply with a JSON object: checks (list of objects with fact_id, confirmed (true or false) and evidence: the
words of the message that reveal it, or an empty string).
[[user]]
$view""",
)

SYNTH_ASSISTANT = PromptTemplate(
    "synth_assistant",
    "1",
    """[[system]]
You are a helpful personal assistant in a conversation with a user. `dialogue` is the conversation so far;
its last message is the user's and you answer it. You can search a knowledge base (kb_search) and read lines
of its documents (read) before answering; use them when the user's question needs facts you should check.
Answer in plain prose for this user, taking into account everything they told you in the conversation.
Keep answers short (a few sentences) and do not invent sources.
[[user]]
$view""",
)

SYNTH_ASSISTANT_FINAL = PromptTemplate(
    "synth_assistant_final",
    "1",
    """[[user]]
You have used your searches and reads for this message. Now write your reply to the user, without tools.""",
)

TEMPLATES = [SYNTH_SIMULATOR, SYNTH_DISCLOSURE_CHECK, SYNTH_ASSISTANT, SYNTH_ASSISTANT_FINAL]
