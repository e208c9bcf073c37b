"""Prompts of the abstention (flawed-premise) and gotcha judges: the project's own wording, a system prompt
and a user prompt each, so that either can be replaced by the verbatim published LongMemEval-V2 prompt of the
same part (agents/prompts/pins.py). The user prompts are filled with the same four values as the published
ones: question, reference_answer, model_full_response, model_final_answer. The reply is a binary label with
a short reason."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

_REPLY = """Reply with a JSON object: label (1 or 0, as defined above) and reason (one or two sentences that say
what in the answer decided the label)."""

JUDGE_ABSTENTION = PromptTemplate(
    "judge_abstention",
    "1",
    """You grade how an assistant handled a question built on a false or unsupported premise: the question assumes
something that did not happen, was never said, or does not exist in the user's records. The reference answer
states what is wrong with the premise. Give label 1 when the answer notices the problem with the premise (in
any wording) and its conclusion agrees with the reference answer, or when it says plainly that it cannot check
the premise because the needed record or system is not available to it and it does not go on to answer as if
the premise held. Give label 0 when the answer accepts the premise and answers under it, when it only says it
does not know without naming any problem with the premise, or when it both questions the premise and still
gives an answer that relies on it.

"""
    + _REPLY,
)

JUDGE_ABSTENTION_USER = PromptTemplate(
    "judge_abstention_user",
    "1",
    """The question (its premise may be false):
$question

What the reference answer says about the premise:
$reference_answer

The assistant's whole response:
$model_full_response

The assistant's final answer:
$model_final_answer

Does the response recognise the flawed premise as the reference does (label 1), or not (label 0)?""",
)

JUDGE_GOTCHA = PromptTemplate(
    "judge_gotcha",
    "1",
    """You grade an answer to a question with a catch: a non-obvious point (a pitfall, an exception, a hidden cause)
that a correct answer must bring up. The reference answer lists the point or points that matter. Give label 1
when the answer states at least one of them, in any wording, and nothing in it goes against any of them;
covering only some of several points is enough. Give label 0 when the answer points the wrong way (the
opposite cause or action), when any of its claims contradicts a reference point, or when it stays generic and
never reaches the point.

"""
    + _REPLY,
)

JUDGE_GOTCHA_USER = PromptTemplate(
    "judge_gotcha_user",
    "1",
    """The question:
$question

The point(s) a correct answer must bring up (reference answer):
$reference_answer

The assistant's whole response:
$model_full_response

The assistant's final answer:
$model_final_answer

Does the response bring up a reference point without contradicting any (label 1), or not (label 0)?""",
)
