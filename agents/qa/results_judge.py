"""J for `eval qa score FILE`: the answers of a results file judged by colabench's own binary judge (the judge
role, the prompts `judge_memory_systems_qa` and, for category 5, `judge_memory_systems_adversarial`, the same
ones `eval qa --system` asks), N independent judge runs (each run its own response-cache namespace:
LLMRoles.repeat_client), J = the mean over runs of each run's share of CORRECT, +/- the sample standard
deviation over runs (ddof 1), per category 1-4 and overall; category 5 apart as the abstention rate.

Nothing is written to the graph; verdicts live only in the report. Their rationales are gold (the judge may quote
the reference answer) and never leave this module: only labels are kept."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from agents.judging.memory_systems_judge import RULE_ADVERSARIAL, RULE_ANSWER, judge_binary
from agents.llm.client import LLMClient
from agents.prompts.memory_systems_qa import JUDGE_MEMORY_SYSTEMS_ADVERSARIAL, JUDGE_MEMORY_SYSTEMS_QA
from agents.prompts.template import PromptTemplate
from agents.qa.locomo_scores import ADVERSARIAL, QaResult
from agents.qa.memory_systems_summary import mean_std
from graph.hashing import text_sha256


@dataclass
class JudgeLabels:
    """The labels of every judge run: `correct[r][i]` is run r+1's verdict on results[i]; `invalid` counts the
    verdicts whose reply stayed invalid after the client's re-asks (counted WRONG)."""

    model: str
    runs: int
    correct: list[list[bool]] = field(default_factory=list)
    invalid: int = 0
    prompts: dict[str, str] = field(default_factory=dict)  # prompt name -> SHA-256

    def j(self, indices: Sequence[int]) -> tuple[list[float], float | None, float | None]:
        """(per-run share CORRECT, mean, sample std) over the results at `indices`."""
        if not indices:
            return [], None, None
        per_run = [sum(run[i] for i in indices) / len(indices) for run in self.correct]
        mean, std = mean_std(per_run)
        return per_run, mean, std


def judge_results(
    results: Sequence[QaResult],
    judge_llms: Sequence[LLMClient],
    *,
    source: str,
    answer_prompt: PromptTemplate | None = None,
    adversarial_prompt: PromptTemplate | None = None,
    workers: int = 4,
    say: Callable[[str], None] | None = None,
) -> JudgeLabels:
    """Judge every result once per client of `judge_llms` (client r asks run r+1); endpoint errors propagate."""
    judge_prompt = answer_prompt or JUDGE_MEMORY_SYSTEMS_QA
    abstain_prompt = adversarial_prompt or JUDGE_MEMORY_SYSTEMS_ADVERSARIAL
    run_id = f"score:{text_sha256(source)[:16]}"
    labels = JudgeLabels(
        model=judge_llms[0].model if judge_llms else "",
        runs=len(judge_llms),
        prompts={judge_prompt.name: judge_prompt.sha256, abstain_prompt.name: abstain_prompt.sha256},
    )
    for number, llm in enumerate(judge_llms, start=1):

        def one(r: QaResult, llm: LLMClient = llm, number: int = number) -> tuple[bool, bool]:
            adversarial = r.category == ADVERSARIAL
            item = f"{r.conversation}[{r.index}]"
            verdict = judge_binary(
                llm,
                abstain_prompt if adversarial else judge_prompt,
                rule=RULE_ADVERSARIAL if adversarial else RULE_ANSWER,
                judge_run=number,
                answer_id=f"{run_id}:{item}",
                qa_run_id=run_id,
                item_id=item,
                question=r.question,
                gold=r.answer,
                answer=r.response,
            )
            return verdict.correct, verdict.valid

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            verdicts = list(pool.map(one, results))
        labels.correct.append([correct for correct, _ in verdicts])
        labels.invalid += sum(not valid for _, valid in verdicts)
        if say is not None:
            say(f"judge run {number}/{len(judge_llms)}: {len(verdicts)} verdict(s)")
    return labels
