"""Memory-quality judge prompts: integrity of one expected memory point, accuracy of one extracted memory, and
the update of one superseded fact. The project's own wording; the axes and the 0/1/2 and category scales
follow the HaluMem evaluation (whose prompt text is not used)."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

JUDGE_MEMORY_INTEGRITY = PromptTemplate(
    "judge_memory_integrity",
    "2",
    """[[system]]
You check whether a memory system kept one thing it should have kept. You get one expected memory point (a
fact about the user that was stated in the conversation) and the list of memories the system stored for this
user, each with its id. Decide how well the stored memories, taken together, carry the expected point.

Score:
- 2: one or more stored memories state the whole point or clearly imply all of it (other wording is fine).
- 1: the memories carry part of it: a key element (who, what, when, where, how much) is missing, vague,
  hedged, or slightly wrong.
- 0: nothing in the memories carries the point, or what they say about it is wrong.
Memories about other things neither help nor hurt. If memories conflict, score the best coverage and say so.

Reply with a JSON object: reason (one or two sentences naming what was kept and what was missing), score (0,
1 or 2), cited_memory_ids (the ids of the memories that carry the point; empty when the score is 0).
[[user]]
## Memories the system stored for this user
$memories

## Expected memory point
$expected_point""",
)

JUDGE_MEMORY_ACCURACY = PromptTemplate(
    "judge_memory_accuracy",
    "2",
    """[[system]]
You check whether one memory that a memory system stored is true. You get the conversation turns the memory
was made from, the user's annotated facts (gold, each with its id) and the memory. Only these sources count:
no outside knowledge.

Split the memory into its smallest claims. A claim is supported when the turns or the facts state it or
plainly entail it; it conflicts when they say otherwise (watch negation, numbers, dates and who it is about).

Score:
- 2: every claim is supported and nothing conflicts.
- 1: at least one claim is supported, but some are unsupported or conflict.
- 0: no claim is supported (an invented or wholly wrong memory).

Also say whether the memory belongs to the gold facts: in_gold is true when every claim is about a subject
the facts cover (values may differ; this is about the kind of information, not its truth), false when some
claim is about something no fact covers.

Reply with a JSON object: reason (one or two sentences with the claims that decided it), score (0, 1 or 2),
in_gold (true or false), cited_fact_ids (ids of the facts that support or contradict it; may be empty).
[[user]]
## The user's annotated facts (gold)
$gold_facts

## Conversation turns the memory was made from
$turns

## The memory to check
$memory""",
)

JUDGE_MEMORY_UPDATE = PromptTemplate(
    "judge_memory_update",
    "2",
    """[[system]]
You check whether a memory system took in a change. A fact about the user was replaced by a newer one in the
conversation. You get the earlier version, the newer version and the memories the system holds now, each with
its id. Classify what the memories do with the newer version:
- correct: some memory carries all of the newer version (key values such as dates, amounts and names exact)
  and the earlier version is no longer presented as current.
- hallucination: a memory about the change states something the newer version contradicts.
- omission: no memory carries the newer version, or one does but leaves out key information.
- other: a failure that is none of these (for example the earlier version kept as current beside the newer).

Reply with a JSON object: reason (one or two sentences), category ("correct", "hallucination", "omission"
or "other"), cited_memory_ids (the memories the decision rests on; may be empty).
[[user]]
## Memories the system holds now
$memories

## Earlier version (replaced)
$earlier_fact

## Newer version (current)
$newer_fact""",
)
