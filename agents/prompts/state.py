"""The state-summary prompt: S(H) from a profile's whole public history (turn text, roles, timestamps and
the assistant's public tool calls; never private facts, items or requirements)."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

STATE_SUMMARY = PromptTemplate(
    "state_summary",
    "2",
    """[[system]]
You write the state summary of one user from their conversations with an assistant. A state is one personal
condition that could matter for later requests: a health condition, treatment or medicine, a person the user
cares for or lives with, where and how they live, work, plans, limits, preferences, important dates.

For each state give:
- text: the condition in one sentence, as the conversations state it.
- concerns: who it is about (the user, or the other person by relation and name).
- time_context: when it was said or when it holds (dates as given, or relative to the session date).
- unresolved: what is still unknown or open about it (an empty list if nothing).
- source_turn_ids: the ids of the turns that state it, preferring the user's own turns.

Use only what the conversations say. When a later turn updates an earlier one, keep the latest value and
mention the earlier one. Merge repetitions. At most $max_states states, most consequential first.
[[user]]
Conversation history of the user (sessions in order; every turn starts with its id in brackets):

$history""",
)
