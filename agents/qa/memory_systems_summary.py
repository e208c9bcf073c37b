"""Results of a memory-systems QA run, read back from the graph (a resumed run and the report see the same
numbers), and several systems' runs side by side.

- J: per judge run, the share of the answered questions of categories 1-4 (LongMemEval: every type but
  abstention) that run judged CORRECT (an invalid verdict counts WRONG, and is counted); J is the mean of the
  per-run shares, ± their sample standard deviation (ddof 1; none for a single run). Per category likewise.
- F1 and BLEU-1: agents.qa.locomo_scores (the harness's definitions), answer against the gold answer.
- Adversarial questions (LoCoMo category 5, LongMemEval `_abs`) are left out of J, F1 and BLEU-1 and
  reported on their own: the abstention rate, the share the adversarial judge found declining, mean ± std
  over runs.
- Search latency p50 / p95 (nearest rank) of the recorded per-question search times, memory tokens fed per
  question (WordPiece count of the fed memories' texts), and what building the memory cost in LLM calls and
  tokens over every build pass (MemoryBuildStep nodes).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from agents.qa.history import QaQuestion
from agents.qa.locomo_scores import bleu1_score, bleu_tokenizer_label, f1_score
from graph.cypher_files import load_cypher
from graph.store import EventStore

LOCOMO_CATEGORY_NAMES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial"}
ABSTENTION = "abstention"


def is_adversarial(q: QaQuestion) -> bool:
    """LoCoMo category 5, or a LongMemEval abstention question: graded by whether the answer declines."""
    return q.question_type == "5" if q.dataset.startswith("locomo") else q.abstention


def question_category(q: QaQuestion) -> str:
    if q.dataset.startswith("locomo"):
        return q.question_type
    return ABSTENTION if q.abstention else q.question_type


def category_label(category: str) -> str:
    name = LOCOMO_CATEGORY_NAMES.get(category)
    return f"{category} {name}" if name else category


class MemoryAnswerRow(BaseModel):
    """One answered question of a run (gold kept apart: `reference` is read for F1 / BLEU-1 only)."""

    item_id: str
    question: str
    category: str
    adversarial: bool
    answer: str | None = None
    reference: str = ""
    verdicts: dict[int, bool] = Field(default_factory=dict)  # judge run -> correct (invalid counts False)
    invalid: int = 0
    verdict_exchanges: dict[int, str | None] = Field(default_factory=dict)
    answer_exchange: str | None = None
    memory_ids: list[str] = Field(default_factory=list)
    search_ms: float | None = None
    memory_tokens: int = 0
    answer_tokens: int = 0
    judge_tokens: int = 0

    @property
    def majority(self) -> bool | None:
        """CORRECT by most judge runs (None when not judged)."""
        if not self.verdicts:
            return None
        return sum(self.verdicts.values()) * 2 > len(self.verdicts)


class CategoryResult(BaseModel):
    category: str
    label: str
    n: int
    n_answered: int
    j_mean: float | None = None
    j_std: float | None = None
    j_runs: list[float] = Field(default_factory=list)
    f1: float | None = None
    bleu1: float | None = None


class MemoryQaSummary(BaseModel):
    qa_run_id: str
    label: str
    system: str
    k: int
    k_source: str
    judge_runs: int
    runs_complete: int = 0  # judge runs that judged every answered question
    categories: list[CategoryResult] = Field(default_factory=list)
    overall: CategoryResult | None = None
    adversarial: CategoryResult | None = None  # j_* here is the abstention rate
    n_questions: int = 0
    n_answered: int = 0
    n_invalid_verdicts: int = 0
    search_ms_p50: float | None = None
    search_ms_p95: float | None = None
    memory_tokens_mean: float | None = None
    memories_fed_mean: float | None = None
    answer_tokens: int = 0
    judge_tokens: int = 0
    build: dict[str, Any] = Field(default_factory=dict)
    bleu_tokenizer: str = ""
    notes: list[str] = Field(default_factory=list)
    rows: list[MemoryAnswerRow] = Field(default_factory=list)

    @classmethod
    def empty(cls, run_id: str, config: dict[str, Any], judge_runs: int) -> MemoryQaSummary:
        return cls(
            qa_run_id=run_id,
            label=str(config.get("label", run_id)),
            system=str(config.get("system", "")),
            k=int(config.get("k", 0)),
            k_source=str(config.get("k_source", "")),
            judge_runs=judge_runs,
        )


def memory_answer_rows(store: EventStore, qa_run_id: str, questions: Sequence[QaQuestion]) -> list[MemoryAnswerRow]:
    """One row per answered question of the run, in question order."""
    with store.driver.session(database=store.database) as session:
        found = {r["item_id"]: dict(r) for r in session.run(load_cypher("qa/memory_run_answers"), qa_run_id=qa_run_id)}
    rows = []
    for q in questions:
        r = found.get(q.item_id)
        if r is None:
            continue
        details = json.loads(r["details"]) if r["details"] else {}
        verdicts: dict[int, bool] = {}
        exchanges: dict[int, str | None] = {}
        invalid = judge_tokens = 0
        for v in r["verdicts"]:
            run = int(v["judge_run"] or 1)
            verdicts[run] = bool(v["correct"]) and bool(v["valid"])
            exchanges[run] = v["exchange"]
            invalid += not v["valid"]
            judge_tokens += int(v["tokens_in"] or 0) + int(v["tokens_out"] or 0)
        rows.append(
            MemoryAnswerRow(
                item_id=q.item_id,
                question=q.question,
                category=question_category(q),
                adversarial=is_adversarial(q),
                answer=r["answer"],
                reference=q.reference_answer,
                verdicts=verdicts,
                invalid=invalid,
                verdict_exchanges=exchanges,
                answer_exchange=r["exchange"],
                memory_ids=list(r["memory_ids"]),
                search_ms=details.get("search_ms"),
                memory_tokens=int(details.get("memory_tokens") or 0),
                answer_tokens=int(r["tokens_in"] or 0) + int(r["tokens_out"] or 0),
                judge_tokens=judge_tokens,
            )
        )
    return rows


def nearest_rank(values: Sequence[float], q: float) -> float | None:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else None


def mean_std(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation (ddof 1; None below two values)."""
    if not values:
        return None, None
    mean = sum(values) / len(values)
    return mean, (statistics.stdev(values) if len(values) > 1 else None)


def _category(category: str, label: str, rows: Sequence[MemoryAnswerRow], n: int, runs: int) -> CategoryResult:
    answered = [r for r in rows if r.answer is not None]
    per_run = []
    for run in range(1, runs + 1):
        judged = [r.verdicts[run] for r in answered if run in r.verdicts]
        if judged:
            per_run.append(sum(judged) / len(judged))
    mean, std = mean_std(per_run)
    scored = [r for r in answered if not r.adversarial]
    return CategoryResult(
        category=category,
        label=label,
        n=n,
        n_answered=len(answered),
        j_mean=mean,
        j_std=std,
        j_runs=per_run,
        f1=(sum(f1_score(r.answer or "", r.reference) for r in scored) / len(scored)) if scored else None,
        bleu1=(sum(bleu1_score(r.answer or "", r.reference) for r in scored) / len(scored)) if scored else None,
    )


def summarise_rows(
    run_id: str, config: dict[str, Any], questions: Sequence[QaQuestion], rows: list[MemoryAnswerRow], runs: int
) -> MemoryQaSummary:
    summary = MemoryQaSummary.empty(run_id, config, runs)
    counts: dict[str, int] = {}
    adversarial_n = 0
    for q in questions:
        if is_adversarial(q):
            adversarial_n += 1
        else:
            counts[question_category(q)] = counts.get(question_category(q), 0) + 1
    scored = [r for r in rows if not r.adversarial]
    summary.categories = [
        _category(c, category_label(c), [r for r in scored if r.category == c], counts[c], runs) for c in sorted(counts)
    ]
    overall_label = "overall (1-4)" if any(q.dataset.startswith("locomo") for q in questions) else "overall"
    summary.overall = _category("overall", overall_label, scored, sum(counts.values()), runs)
    if adversarial_n:
        adversarial = _category(
            "adversarial", "adversarial: abstention rate", [r for r in rows if r.adversarial], adversarial_n, runs
        )
        summary.adversarial = adversarial
    summary.n_questions = len(questions)
    summary.n_answered = len(rows)
    summary.runs_complete = sum(1 for run in range(1, runs + 1) if rows and all(run in r.verdicts for r in rows))
    summary.n_invalid_verdicts = sum(r.invalid for r in rows)
    searched = [float(r.search_ms) for r in rows if r.search_ms is not None]
    summary.search_ms_p50 = nearest_rank(searched, 0.5)
    summary.search_ms_p95 = nearest_rank(searched, 0.95)
    summary.memory_tokens_mean = sum(r.memory_tokens for r in rows) / len(rows) if rows else None
    summary.memories_fed_mean = sum(len(r.memory_ids) for r in rows) / len(rows) if rows else None
    summary.answer_tokens = sum(r.answer_tokens for r in rows)
    summary.judge_tokens = sum(r.judge_tokens for r in rows)
    summary.bleu_tokenizer = bleu_tokenizer_label()
    if summary.runs_complete < runs:
        summary.notes.append(
            f"{runs - summary.runs_complete} of {runs} judge run(s) did not judge every answered question: "
            "J of such a run is over the questions it judged (rerun the command to finish)"
        )
    if summary.n_invalid_verdicts:
        summary.notes.append(f"{summary.n_invalid_verdicts} verdict(s) stayed invalid after re-asking: counted WRONG")
    if summary.n_answered < summary.n_questions:
        summary.notes.append(f"{summary.n_questions - summary.n_answered} question(s) not answered yet")
    summary.rows = rows
    return summary


def build_cost(store: EventStore, system: str, profile_ids: Sequence[str]) -> dict[str, Any]:
    """LLM calls, tokens and seconds of building the system's memory of these profiles (every pass), and
    the memories it holds."""
    with store.driver.session(database=store.database) as session:
        record = session.run(load_cypher("qa/memory_build_cost"), system=system, profile_ids=list(profile_ids)).single()
    out = dict(record) if record else {}
    return {key: (round(float(v), 3) if isinstance(v, float) else int(v or 0)) for key, v in out.items()}


def summarise_memory_run(
    store: EventStore,
    run_id: str,
    config: dict[str, Any],
    questions: Sequence[QaQuestion],
    runs: int,
    profile_ids: Sequence[str],
) -> MemoryQaSummary:
    summary = summarise_rows(run_id, config, questions, memory_answer_rows(store, run_id, questions), runs)
    summary.build = build_cost(store, summary.system, profile_ids)
    return summary


# --- several systems side by side ---------------------------------------------------------------------------


class Disagreement(BaseModel):
    """A question the systems' majority verdicts split on (no gold: question, answers and verdicts only)."""

    item_id: str
    question: str
    category: str
    by_system: dict[str, dict[str, Any]] = Field(default_factory=dict)  # label -> answer, correct, exchanges


def disagreements(summaries: Sequence[MemoryQaSummary]) -> list[Disagreement]:
    """Questions answered and judged by every run whose majority verdicts differ between runs."""
    by_run = [{r.item_id: r for r in s.rows if r.majority is not None} for s in summaries]
    if len(summaries) < 2:
        return []
    common = set(by_run[0]).intersection(*by_run[1:])
    out = []
    for item_id in sorted(common):
        verdicts = {rows[item_id].majority for rows in by_run}
        if len(verdicts) < 2:
            continue
        first = by_run[0][item_id]
        out.append(
            Disagreement(
                item_id=item_id,
                question=first.question,
                category=category_label(first.category),
                by_system={
                    s.label: {
                        "answer": rows[item_id].answer,
                        "correct": rows[item_id].majority,
                        "runs_correct": sum(rows[item_id].verdicts.values()),
                        "runs": len(rows[item_id].verdicts),
                        "memory_ids": rows[item_id].memory_ids,
                        "answer_exchange": rows[item_id].answer_exchange,
                        "verdict_exchanges": rows[item_id].verdict_exchanges,
                    }
                    for s, rows in zip(summaries, by_run, strict=True)
                },
            )
        )
    return out


def collect_memory_runs(store: EventStore) -> list[dict[str, Any]]:
    """Every memory-systems QA run in the graph (newest first), summarised, grouped by dataset and questions:
    [{dataset, n_items, runs: [MemoryQaSummary], disagreements, notes}]; a note says when the runs of a group
    did not all use the same answering and judging models."""
    from agents.qa.history import load_questions

    with store.driver.session(database=store.database) as session:
        runs = [dict(r) for r in session.run(load_cypher("qa/memory_runs"))]
    groups: dict[tuple[str, tuple[str, ...]], list[MemoryQaSummary]] = {}
    models: dict[tuple[str, tuple[str, ...]], set[tuple[str, str]]] = {}
    for run in runs:
        config = json.loads(run["config"]) if run["config"] else {}
        item_ids = list(run["item_ids"] or [])
        questions = load_questions(store, item_ids)
        judged_runs = _judge_runs_recorded(store, run["qa_run_id"])
        summary = summarise_memory_run(
            store, run["qa_run_id"], config, questions, judged_runs, sorted({q.profile_id for q in questions})
        )
        key = (str(run["dataset"]), tuple(item_ids))
        groups.setdefault(key, []).append(summary)
        used = json.loads(run["models"]) if run["models"] else {}
        models.setdefault(key, set()).add((str(used.get("answerer")), str(used.get("judge"))))
    out = []
    for key, summaries in groups.items():
        summaries.sort(key=lambda s: s.label)
        notes = []
        if len(models[key]) > 1:
            pairs = "; ".join(f"answerer {a}, judge {j}" for a, j in sorted(models[key]))
            notes.append(f"these runs used different models ({pairs}): the systems are not compared like for like")
        out.append(
            {
                "dataset": key[0],
                "n_items": len(key[1]),
                "runs": summaries,
                "disagreements": disagreements(summaries),
                "notes": notes,
            }
        )
    return out


def _judge_runs_recorded(store: EventStore, run_id: str) -> int:
    with store.driver.session(database=store.database) as session:
        record = session.run(load_cypher("qa/memory_judge_runs"), qa_run_id=run_id).single()
    n = record["n"] if record else None
    return int(n) if n is not None else 1
