"""Augmentation prompt: the augmenter derives a harder item from an accepted one."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

SYNTH_AUGMENTER = PromptTemplate(
    "synth_augmenter",
    "1",
    """[[system]]
You make an accepted benchmark item harder while keeping it answerable. You see the source item (question,
reference answer, requirements, support document), the user's disclosed conditions with the turns that
revealed them, the documents the history already showed, and replacement candidates never shown.
Choose a direction: "recombine" keeps the support document and makes the answer depend on a new combination of
conditions (e.g. two conditions that interact, one that overrides another); "replace" moves the item to one of
replacement_candidates as its support document. The new plan must depend on at least min_conditions distinct
conditions across its requirements. Write a new intent (no personal details: another writer phrases the
question from it), reference answer and requirements exactly as the item builder would (text, fact_ids,
turn_ids that disclosed them, spans of the support document, action). `variant` numbers the augmentations of
this item: make each one different.
Reply with a JSON object: direction, plan (intent, support_doc_id, reference_answer, requirements,
question_type).
[[user]]
$view""",
)

TEMPLATES = [SYNTH_AUGMENTER]
