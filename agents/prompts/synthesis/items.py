"""Stage III prompts: the Builder plans an item, the question writer phrases it, the History Gate's blind
solver and comparator test whether the history is needed, and the final verifier checks the admitted item."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

SYNTH_ITEM_BUILDER = PromptTemplate(
    "synth_item_builder",
    "2",
    """[[system]]
You design one test item for a benchmark of personal assistants. A good item can only be answered well by an
assistant that both remembers what this user said in earlier conversations and reads a document it has not
been shown before. You see the user's disclosed conditions (each with the user turns that revealed it,
verbatim), the ids of documents the earlier conversations already showed (never use them as support), and
candidate support documents with numbered lines.

Pick ONE candidate as the support document. Write the intent (what the user will ask for, in a sentence, with
no personal details), a reference answer that applies the document to the user's conditions, and the answer
requirements: each has a short text stating what a good answer must do, the fact_ids of the conditions it
depends on, the turn_ids that disclosed those conditions, spans (doc_id, start_line, end_line) of the support
document that justify it, and optionally an action (e.g. "warn", "adjust dose", "refer"). At least one
requirement must depend on a condition and one must cite support lines. question_type names the kind of
reasoning (e.g. "condition_application", "multi_condition", "temporal"). When conditions_wanted is "one", the
requirements together must depend on exactly one condition; when it is "two_or_more", on at least two
distinct conditions whose combination changes the answer. If revision_problems is not empty,
your previous plan (previous_plan) failed: fix every problem.
Reply with a JSON object: intent, support_doc_id, reference_answer, requirements (list of text, fact_ids,
turn_ids, spans, action), question_type.
[[user]]
$view""",
)

SYNTH_QUESTION_WRITER = PromptTemplate(
    "synth_question_writer",
    "1",
    """[[system]]
You write the user's next message to their personal assistant. You know the user's first name, the topics of
their earlier conversations and what they want now (the intent). Write the request as this user would type
it: natural, first person, specific about what they want, but WITHOUT repeating personal details (health
conditions, medications, family or work circumstances): the assistant is expected to remember those from the
earlier conversations. Do not mention documents or that this is a test.
Reply with a JSON object: question.
[[user]]
$view""",
)

SYNTH_BLIND_SOLVER = PromptTemplate(
    "synth_blind_solver",
    "2",
    """[[system]]
Answer the question as well as you can using only the document given and general knowledge. The document comes
as the pages an assistant's Read tool returned (numbered lines, from line 1); whole_document_read says whether
the pages cover all of it.
You know nothing about the person asking beyond the question itself; do not invent personal details. Be
concrete: if the right answer depends on facts about the person you do not have, say what you would need.
Reply with a JSON object: answer.
[[user]]
$view""",
)

SYNTH_COMPARATOR = PromptTemplate(
    "synth_comparator",
    "1",
    """[[system]]
You are the History Gate of a benchmark. An assistant without any memory of the user answered the question
(blind_answer). Compare it with the reference answer and its requirements.
Label "answerable_without_history" when the blind answer already meets the requirements (the item does not
need the user's history); "history_dependent" when it misses requirements that need the user's earlier
disclosures but the requirements are well supported; "insufficient_evidence" when the reference answer or
requirements are not supported by the question and evidence at all. Explain briefly in notes.
Reply with a JSON object: label, notes.
[[user]]
$view""",
)

SYNTH_ITEM_VERIFIER = PromptTemplate(
    "synth_item_verifier",
    "2",
    """[[system]]
You are the final verifier of a benchmark item that passed the History Gate. Check each point and answer true
or false: natural (the question reads like a real user's request and does not give away personal details);
conditions_grounded (every condition a requirement relies on is stated in its source turns);
history_alone_insufficient (what the history already showed does not suffice: documents_seen_in_history gives
the lines of each document the earlier conversations showed, within the stated limits; the new support
document must be needed); evidence_supports_answer (the cited lines support the reference answer); safe (the
reference answer gives no harmful advice). List the problems of every false point.
Reply with a JSON object: natural, conditions_grounded, history_alone_insufficient, evidence_supports_answer,
safe, problems (list of strings).
[[user]]
$view""",
)

TEMPLATES = [SYNTH_ITEM_BUILDER, SYNTH_QUESTION_WRITER, SYNTH_BLIND_SOLVER, SYNTH_COMPARATOR, SYNTH_ITEM_VERIFIER]
