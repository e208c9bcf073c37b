"""A judge from outside the package (issue 23, item 3): one module, one registration line. Named in
COLABENCH_PLUGINS it is a `--judges` name, its prompts are in the prompt registry, and it declares what it
produces: no metric field of its own and the `premise_judges` report section, which then lists its kind."""

from __future__ import annotations

from agents.judging.binary_label import BinaryLabelJudge
from agents.judging.registry import register_judge
from agents.prompts.template import PromptTemplate


class EchoPremiseJudge(BinaryLabelJudge):
    name = "echo_premise"
    description = "a plug-in: does the answer repeat the question's premise (label 1/0)"
    metrics = ()
    report_section = "premise_judges"
    system_template = PromptTemplate("judge_echo_premise", "1", "Give label 1 when the answer repeats the premise.")
    user_template = PromptTemplate(
        "judge_echo_premise_user", "1", "$question\n\n$reference_answer\n\n$model_full_response\n\n$model_final_answer"
    )


register_judge(EchoPremiseJudge())
