"""Prompts of stage III and the augmentation for items with several support documents (`synth --support-docs
N`, N >= 2): the Builder plans `support_docs_wanted` documents, the blind solver reads each of them, the final
verifier sees each one's text and the augmenter's `replace` swaps one of them. With one support document per item
(the paper's, the default) the pipeline uses the templates of `items.py` and `augment.py` unchanged, so its
requests and the prompt hashes a synthesis records stay as they were; these templates are recorded in
`SynthesisStarted` only by a synthesis that asks for two or more."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

SYNTH_ITEM_BUILDER_DOCS = PromptTemplate(
    "synth_item_builder_docs",
    "1",
    """[[system]]
You design one test item for a benchmark of personal assistants. A good item can only be answered well by an
assistant that both remembers what this user said in earlier conversations and reads documents it has not been
shown before. You see the user's disclosed conditions (each with the user turns that revealed it, verbatim), the
ids of documents the earlier conversations already showed (never use them as support), and candidate support
documents with numbered lines.

Pick exactly support_docs_wanted DIFFERENT candidates as the support documents (support_doc_ids): the answer
must need all of them together, each contributing something the others do not. Write the intent (what the user
will ask for, in a sentence, with no personal details), a reference answer that applies the documents to the
user's conditions, and the answer requirements: each has a short text stating what a good answer must do, the
fact_ids of the conditions it depends on, the turn_ids that disclosed those conditions, spans (doc_id,
start_line, end_line) of the support documents that justify it, and optionally an action (e.g. "warn", "adjust
dose", "refer"). At least one requirement must depend on a condition, and every support document must be cited
by the spans of at least one requirement. question_type names the kind of reasoning (e.g.
"condition_application", "multi_condition", "multi_document"). When conditions_wanted is "one", the
requirements together must depend on exactly one condition; when it is "two_or_more", on at least two distinct
conditions whose combination changes the answer. If revision_problems is not empty, your previous plan
(previous_plan) failed: fix every problem.
Reply with a JSON object: intent, support_doc_ids (list), reference_answer, requirements (list of text,
fact_ids, turn_ids, spans, action), question_type.
[[user]]
$view""",
)

SYNTH_BLIND_SOLVER_DOCS = PromptTemplate(
    "synth_blind_solver_docs",
    "1",
    """[[system]]
Answer the question as well as you can using only the documents given and general knowledge. Each document
comes as the pages an assistant's Read tool returned (numbered lines, from line 1); its whole_document_read says
whether the pages cover all of it.
You know nothing about the person asking beyond the question itself; do not invent personal details. Be
concrete: if the right answer depends on facts about the person you do not have, say what you would need.
Reply with a JSON object: answer.
[[user]]
$view""",
)

SYNTH_ITEM_VERIFIER_DOCS = PromptTemplate(
    "synth_item_verifier_docs",
    "1",
    """[[system]]
You are the final verifier of a benchmark item that passed the History Gate. Check each point and answer true
or false: natural (the question reads like a real user's request and does not give away personal details);
conditions_grounded (every condition a requirement relies on is stated in its source turns);
history_alone_insufficient (what the history already showed does not suffice: documents_seen_in_history gives
the lines of each document the earlier conversations showed, within the stated limits; the new support
documents must be needed); evidence_supports_answer (the cited lines of the support documents, each given in
support_documents, support the reference answer); safe (the reference answer gives no harmful advice). List the
problems of every false point.
Reply with a JSON object: natural, conditions_grounded, history_alone_insufficient, evidence_supports_answer,
safe, problems (list of strings).
[[user]]
$view""",
)

SYNTH_AUGMENTER_DOCS = PromptTemplate(
    "synth_augmenter_docs",
    "1",
    """[[system]]
You make an accepted benchmark item harder while keeping it answerable. You see the source item (question,
reference answer, requirements, support documents), the user's disclosed conditions with the turns that
revealed them, the documents the history already showed, and replacement candidates never shown.
Choose a direction: "recombine" keeps the same support documents and makes the answer depend on a new
combination of conditions (e.g. two conditions that interact, one that overrides another); "replace" swaps
exactly ONE of the support documents for one of replacement_candidates and keeps the others. The new plan must
depend on at least min_conditions distinct conditions across its requirements, and every one of its support
documents must be cited by the spans of at least one requirement. Write a new intent (no personal details:
another writer phrases the question from it), reference answer and requirements exactly as the item builder
would (text, fact_ids, turn_ids that disclosed them, spans of the support documents, action). `variant` numbers
the augmentations of this item: make each one different.
Reply with a JSON object: direction, plan (intent, support_doc_ids (list), reference_answer, requirements,
question_type).
[[user]]
$view""",
)

TEMPLATES = [SYNTH_ITEM_BUILDER_DOCS, SYNTH_BLIND_SOLVER_DOCS, SYNTH_ITEM_VERIFIER_DOCS, SYNTH_AUGMENTER_DOCS]

# Recorded in SynthesisStarted only when the synthesis builds two or more support documents per item.
SUPPORT_DOCS_PROMPTS = frozenset(t.name for t in TEMPLATES)
