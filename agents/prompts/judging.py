"""Judge prompts: accuracy, the five answer-quality dimensions (one blind call each) and the error analysis
of failed answers. The project's own wording; the inputs follow the paper's protocol (App. D)."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

# The sections run from the most shared to the most specific, so that an endpoint's prefix cache holds the
# system prompt and the user's history (the same for every item of a profile) across calls: then the item's
# request and grading reference (the same for every method), then what one attempt saw and answered.
_REFERENCE = """## The user's public conversation history
$history

## Request
Asked $asked_at:
$question

## Reference answer
$reference_answer

## Answer requirements
$requirements

## History and support documents (grader reference)
$documents

## The state summary the assistant was shown before its first search (its visible evidence)
$states

## What the assistant's tools returned, whole and in the order it saw them (its visible evidence)
$evidence

## The assistant's answer
$answer"""

JUDGE_ACCURACY = PromptTemplate(
    "judge_accuracy",
    "3",
    """[[system]]
You grade one answer that an assistant gave to a user's request. You have the grading reference: the user's
whole public conversation history, the reference answer, the answer requirements (each with the user
statements, personal conditions and document passages it rests on, and the judgment or action it needs),
and the history and support documents. You also have what the assistant's searches and reads returned, and
its answer.

Grade the answer as a whole.
- pass: it deals with every decision or question the request explicitly asks, and its core conclusion and
  key actions are right for this user, including the personal conditions, the requirements that apply and
  their limits. Supported equivalent wording and implicit but correct use of a personal condition are fine.
  Where a premise is unknown, the answer keeps the affected advice conditional.
- fail: an error or omission that, corrected, would change the conclusion, the action, its timing, whether a
  rule applies, or safety. Stating a personal fact that the records do not support is an error when the
  answer depends on it.
- needs_adjudication: the material does not allow a decision (the references conflict, or the answer cannot
  be read).
Differences from the reference that do not affect the task are not failures; mention them in the rationale.

Reply with a JSON object: verdict ("pass", "fail" or "needs_adjudication"), rationale (a few sentences that
name the requirements that decided it), failed_requirement_ids (ids of the requirements the answer does not
meet; empty when it passes).
[[user]]
"""
    + _REFERENCE,
)

# The blind judge's reference (App. D.2): the grading reference of D.1 and what the searches and reads returned,
# in one shape for every method (agents/judging/blind_evidence.py); no S(H) block, whose presence and wording
# identify the method.
_BLIND_REFERENCE = """## The user's public conversation history
$history

## Request
Asked $asked_at:
$question

## Reference answer
$reference_answer

## Answer requirements
$requirements

## History and support documents (grader reference)
$documents

## What the assistant's searches and reads returned, whole and in the order it saw them (its visible evidence)
$evidence

## The assistant's answer
$answer"""

_QUALITY_FRAME = """[[system]]
You score one quality dimension of an assistant's answer to a user's request, on a scale from 1 (poor) to 5
(excellent). You have the grading reference and what the assistant's searches and reads returned, written the
same way for every assistant (memories are numbered in the order they were found). You are not told which
system wrote the answer; judge only what is in front of you.

Dimension: {title}
{rubric}

Reply with a JSON object: score (an integer from 1 to 5), candidate_excerpt (the words of the answer that most
determine the score), source_evidence (the reference or returned evidence you checked them against, quoted or
cited by id), rationale (one or two sentences).
[[user]]
"""

QUALITY_DIMENSIONS: dict[str, tuple[str, str]] = {
    "state_fidelity": (
        "State fidelity",
        "Do the personal conditions the answer states keep the speaker, the actor, the timing and the uncertainty "
        "they have in the history? 5: every stated condition matches its source; 1: conditions are misattributed, "
        "mistimed, or uncertain ones are stated as settled.",
    ),
    "condition_coverage": (
        "Condition coverage",
        "Does the answer reflect, in substance, the personal premises this request needs (see the requirements)? "
        "5: all needed premises shape the answer; 1: the answer ignores the user's situation.",
    ),
    "evidence_grounding": (
        "Evidence grounding",
        "Are the answer's knowledge claims supported by the reference documents and by the passages the assistant "
        "actually retrieved? 5: every claim is supported; 1: claims are unsupported or contradicted.",
    ),
    "rule_application": (
        "Rule application",
        "Are the rules' premises, limits, exceptions and timing applied correctly to this user's situation? 5: "
        "applied correctly throughout; 1: rules are misapplied in ways that change the advice.",
    ),
    "answer_completeness": (
        "Answer completeness",
        "Does the answer cover every requested sub-question and every necessary action? 5: complete; 1: most of "
        "what was asked or needed is missing.",
    ),
}


def _quality_template(dimension: str) -> PromptTemplate:
    title, rubric = QUALITY_DIMENSIONS[dimension]
    return PromptTemplate(
        f"judge_quality_{dimension}", "4", _QUALITY_FRAME.format(title=title, rubric=rubric) + _BLIND_REFERENCE
    )


JUDGE_QUALITY: dict[str, PromptTemplate] = {dim: _quality_template(dim) for dim in QUALITY_DIMENSIONS}

ERROR_CATEGORIES = ("personal_assumption", "context_underuse", "rule_misuse", "answer_omission", "other")
VISIBILITY_LEVELS = ("visible", "partial", "invisible", "uncertain")

JUDGE_ERROR_ANALYSIS = PromptTemplate(
    "judge_error_analysis",
    "3",
    """[[system]]
An assistant's answer to a user's request was graded as failed. Find the decisive error and whether the
evidence needed to avoid it was available to the assistant. The accuracy grade stays as it is.

main_category, the decisive error:
- personal_assumption: an unknown state, a plan, a suggestion or another person's information is treated as an
  established personal fact of the user;
- context_underuse: a condition of the user that the records establish is not applied to the judgment;
- rule_misuse: a wrong knowledge claim, a wrong reading of a rule, or a wrong call on whether it applies;
- answer_omission: a required sub-question, action, limit or step is missing, and no more direct personal-context
  error explains it;
- other: anything else, or a conflict of attribution or source that cannot be resolved.
secondary_categories: at most two further categories, each with its own support (may be empty).
visibility: were the personal premises and rules needed to avoid the error available to the assistant, in the
request, its state list, memories and search and read returns? Grader-only material and candidates it never saw
do not count. For an unsupported personal claim, judge the visibility of the correct condition or of the
uncertainty.
- visible: all required evidence was available;
- partial: some was available, key content was missing;
- invisible: the key evidence was not available;
- uncertain: conflicting records make a reliable call impossible.

Reply with a JSON object: main_category, secondary_categories, visibility, rationale (a few sentences citing the
evidence).
[[user]]
"""
    + _REFERENCE
    # last: the one part that differs between this judge's calls and the accuracy judge's on the same attempt
    + """

Accuracy grader's rationale: $accuracy_rationale""",
)
