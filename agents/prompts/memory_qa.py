"""Prompts of the memory QA axis (`eval memory --judges qa`): a reader that answers one of the profile's
questions from nothing but the memories a memory system retrieved for it, and a judge that sorts that answer
into correct / hallucination / omission against the reference answer. The project's own wording; the three
classes follow the HaluMem QA evaluation (whose prompt text is not used)."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

ANSWER_FROM_MEMORIES = PromptTemplate(
    "answer_from_memories",
    "1",
    """[[system]]
You answer a question about a user using only the notes a memory system kept about them. Each note has an
id. Do not use outside knowledge and do not guess: when the notes do not contain what the question needs,
say plainly that the memories do not hold this information. When notes disagree, prefer the most recent one
and say so. Keep the answer short (one to three sentences).

Reply with a JSON object: answer (your answer), used_memory_ids (the ids of the notes you relied on; empty
when you found nothing).
[[user]]
## Question
$question

## Notes the memory system retrieved for it
$memories""",
)

JUDGE_MEMORY_QA = PromptTemplate(
    "judge_memory_qa",
    "1",
    """[[system]]
You grade an answer that was given from a memory system's notes about a user. You get the question, the
reference answer and the answer given. Sort the answer into one class:
- correct: it gives what the reference answer gives (other wording is fine; extra detail is fine when it does
  not contradict the reference). For a question whose reference says it cannot be answered from the
  conversation, correct means the answer says the information is not available.
- hallucination: it states something the reference contradicts, or makes up a specific value (a name,
  number, date, place) that the reference does not give.
- omission: it says the information is missing, or it is so vague or incomplete that a key part of the
  reference is absent, without stating anything false.
Judge only against the reference answer; do not reward an answer for sounding confident.

Reply with a JSON object: reason (one or two sentences), category ("correct", "hallucination" or "omission").
[[user]]
## Question
$question
$question_type_line
## Reference answer
$reference_answer

## Answer given from the memories
$answer""",
)
