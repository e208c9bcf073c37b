"""Judge prompts of the LongMemEval reading line, one per grading rule (LongMemEval's per-type rules, in the
project's own words): the default rule, temporal reasoning (off-by-one counts tolerated), knowledge update
(the latest value needed), single-session preference (graded against the rubric) and abstention (pass only
when the answer says the information is missing). Each yields {"verdict": "yes"|"no", "reason": ...}."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

_INPUTS = """[[user]]
Question: $question

$reference_label: $reference

Response to grade: $answer"""

_REPLY = 'Reply with JSON: {"verdict": "yes" or "no", "reason": one sentence}.'

JUDGE_QA_DEFAULT = PromptTemplate(
    "judge_lme_qa_default",
    "1",
    f"""[[system]]
You check whether a chat assistant's response answers a question about the user's past conversations
correctly. Say yes when the response gives the reference answer or something equivalent to it (other words,
the same fact). Say no when it gives a different answer, only part of what the reference needs, or no
answer. Extra explanation around a correct answer is fine. {_REPLY}

{_INPUTS}""",
)

JUDGE_QA_TEMPORAL = PromptTemplate(
    "judge_lme_qa_temporal",
    "1",
    f"""[[system]]
You check whether a chat assistant's response answers a time question about the user's past conversations
correctly. Say yes when the response gives the reference answer or an equivalent one. Counts of days, weeks
or months may be off by one from the reference (e.g. 18 days for a reference of 19 days) and still pass:
such counts depend on whether the first and last day are included. Say no for any other difference, a
missing answer, or only part of what is asked. {_REPLY}

{_INPUTS}""",
)

JUDGE_QA_UPDATE = PromptTemplate(
    "judge_lme_qa_knowledge_update",
    "1",
    f"""[[system]]
You check whether a chat assistant's response answers a question whose answer changed over the user's past
conversations; the reference is the latest value. Say yes when the response gives the latest value as the
answer, even if it also mentions earlier values as history. Say no when it answers with an earlier value,
leaves open which value holds now, or gives no answer. {_REPLY}

{_INPUTS}""",
)

JUDGE_QA_PREFERENCE = PromptTemplate(
    "judge_lme_qa_preference",
    "1",
    f"""[[system]]
You check whether a chat assistant's response to a request for advice or suggestions takes the user's own
preferences into account. The rubric says what a good personalised response does. Say yes when the response
follows the rubric, using the user's personal information correctly; it need not mention every point of the
rubric. Say no when it ignores the user's preferences, contradicts them, or gives generic advice. {_REPLY}

{_INPUTS}""",
)

JUDGE_QA_ABSTENTION = PromptTemplate(
    "judge_lme_qa_abstention",
    "1",
    f"""[[system]]
The question below cannot be answered from the user's past conversations: it asks about something the user
never mentioned, or mixes up what was said. The note says what is missing. Say yes only when the response
says that the information is not available, was not mentioned, or that it cannot tell; say no when the
response answers as if the information were known. {_REPLY}

{_INPUTS}""",
)

QA_JUDGE_PROMPTS = {
    "default": JUDGE_QA_DEFAULT,
    "temporal": JUDGE_QA_TEMPORAL,
    "knowledge_update": JUDGE_QA_UPDATE,
    "preference": JUDGE_QA_PREFERENCE,
    "abstention": JUDGE_QA_ABSTENTION,
}
