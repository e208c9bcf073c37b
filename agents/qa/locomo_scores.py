"""The lexical scores of the memory-systems QA protocol on LoCoMo (the evaluation the field runs from Mem0's
repository): token F1 and BLEU-1 per question, per category 1-4 and overall, with category 5 (adversarial)
left out of both and counted apart. Definitions (facts of that protocol; the code is the project's own):

- F1: lowercase; `.` `,` `!` `?` become spaces; split on white space; the token *sets* of prediction and gold;
  F1 = 2PR / (P + R) of their overlap; 0 when either set is empty.
- BLEU-1: NLTK's `sentence_bleu` of the lowercased word tokens (gold as the one reference), weights
  (1, 0, 0, 0), smoothing `method1`. Tokens are `nltk.word_tokenize`'s when NLTK's Punkt data is on the machine;
  it is not on the package index, so otherwise the same treebank word tokenizer runs on sentences split by an
  untrained Punkt model, and every result names that (`bleu_tokenizer`).

`score_results_file` reads a results file of that harness's shape, `{conversation: [{question, answer,
response, category, ...}]}`, refusing a malformed one with its JSON path and field."""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from agents.qa.errors import QaError

if TYPE_CHECKING:
    from agents.qa.results_judge import JudgeLabels

ADVERSARIAL = 5
SCORED_CATEGORIES = (1, 2, 3, 4)
_PUNCTUATION = re.compile(r"[.,!?]")


def f1_score(prediction: str, gold: str) -> float:
    """Set-overlap token F1 as the protocol defines it (see the module docstring)."""
    predicted = set(_PUNCTUATION.sub(" ", str(prediction).lower()).split())
    wanted = set(_PUNCTUATION.sub(" ", str(gold).lower()).split())
    if not predicted or not wanted:
        return 0.0
    common = len(predicted & wanted)
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


@cache
def _tokenizer() -> tuple[str, Any]:
    """(label, function text -> tokens): NLTK's word_tokenize when its Punkt data is present, else the labelled
    stand-in (never a download)."""
    import nltk
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
        return "nltk.word_tokenize (Punkt data found)", nltk.word_tokenize
    except LookupError:
        words, sentences = NLTKWordTokenizer(), PunktSentenceTokenizer()

        def tokenize(text: str) -> list[str]:
            return [token for sentence in sentences.tokenize(text) for token in words.tokenize(sentence)]

        return "NLTK treebank words on an untrained Punkt sentence split (Punkt data not installable offline)", tokenize


def bleu_tokenizer_label() -> str:
    return str(_tokenizer()[0])


def bleu1_score(prediction: str, gold: str) -> float:
    """BLEU-1 as the protocol defines it; 0 when either side has no tokens."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    tokenize = _tokenizer()[1]
    hypothesis, reference = tokenize(str(prediction).lower()), tokenize(str(gold).lower())
    if not hypothesis or not reference:
        return 0.0
    return float(
        sentence_bleu([reference], hypothesis, weights=(1, 0, 0, 0), smoothing_function=SmoothingFunction().method1)
    )


class QaResult(BaseModel):
    """One answered question of a results file."""

    conversation: str
    index: int
    question: str
    answer: str
    response: str
    category: int
    judged: float | None = None  # a recorded J label (1 correct, 0 wrong), when the file carries one


class CategoryScores(BaseModel):
    category: str
    n: int
    f1: float | None = None
    bleu1: float | None = None
    j: float | None = None  # the file's own labels (llm_score / judgment), mean
    n_j: int = 0
    # colabench's judge (`eval qa score` with a judge configured): each run's share CORRECT, mean, sample std
    j_judge_runs: list[float] = Field(default_factory=list)
    j_judge: float | None = None
    j_judge_std: float | None = None


class ScoreReport(BaseModel):
    path: str
    bleu_tokenizer: str
    n_questions: int
    n_adversarial: int
    categories: list[CategoryScores] = Field(default_factory=list)
    overall: CategoryScores
    # category 5 judged by the adversarial judge (CORRECT = the answer declines): the abstention rate
    abstention: CategoryScores | None = None
    # J's source: "judge" (colabench's judge asked now), "file" (the file's own labels) or None (no J)
    j_source: str | None = None
    judge: dict[str, Any] | None = None  # model, runs, invalid verdicts, prompt hashes
    notes: list[str] = Field(default_factory=list)


def _text(value: Any, where: str, field: str, path: str) -> str:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    raise QaError(f"{path}: {where}: {field}: expected text, got {type(value).__name__}")


def read_results_file(path: Path) -> list[QaResult]:
    """Every question of a results file, in file order; QaError naming the JSON path and field otherwise."""
    name = str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise QaError(f"{name}:{exc.lineno}: not JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise QaError(f"{name}: not UTF-8 text") from None
    if not isinstance(data, dict):
        raise QaError(f"{name}: $: expected an object of conversations, each a list of answered questions")
    results: list[QaResult] = []
    for conversation, rows in data.items():
        if not isinstance(rows, list):
            raise QaError(f"{name}: $.{conversation}: expected a list of answered questions")
        for index, row in enumerate(rows):
            where = f"$.{conversation}[{index}]"
            if not isinstance(row, dict):
                raise QaError(f"{name}: {where}: expected an object")
            for field in ("question", "answer", "response", "category"):
                if field not in row:
                    raise QaError(f"{name}: {where}: {field}: missing")
            category = row["category"]
            if isinstance(category, str) and category.strip().isdigit():
                category = int(category)
            if not isinstance(category, int) or isinstance(category, bool) or not 1 <= category <= ADVERSARIAL:
                raise QaError(f"{name}: {where}: category: expected 1-5, got {row['category']!r}")
            judged = row.get("llm_score", row.get("judgment"))
            if judged is not None and not (isinstance(judged, (int, float)) and not isinstance(judged, bool)):
                judged = {"correct": 1.0, "wrong": 0.0}.get(str(judged).strip().lower())
            results.append(
                QaResult(
                    conversation=str(conversation),
                    index=index,
                    question=_text(row["question"], where, "question", name),
                    answer=_text(row["answer"], where, "answer", name),
                    response=_text(row["response"], where, "response", name),
                    category=category,
                    judged=None if judged is None or math.isnan(float(judged)) else float(judged),
                )
            )
    return results


def _mean(values: Iterable[float]) -> float | None:
    kept = list(values)
    return sum(kept) / len(kept) if kept else None


def _scores(label: str, rows: list[QaResult], labels: JudgeLabels | None = None,
            indices: list[int] | None = None) -> CategoryScores:
    judged = [r.judged for r in rows if r.judged is not None]
    scores = CategoryScores(
        category=label,
        n=len(rows),
        f1=_mean(f1_score(r.response, r.answer) for r in rows),
        bleu1=_mean(bleu1_score(r.response, r.answer) for r in rows),
        j=_mean(judged),
        n_j=len(judged),
    )
    if labels is not None and indices is not None:
        scores.j_judge_runs, scores.j_judge, scores.j_judge_std = labels.j(indices)
    return scores


def score_results(results: list[QaResult], path: str, labels: JudgeLabels | None = None) -> ScoreReport:
    """Per-category and overall F1 / BLEU-1 over categories 1-4 (category 5 is counted, never scored), with J:
    colabench's judge's `labels` (one list per judge run, aligned with `results`) when given, else the file's
    own recorded labels where it has them."""
    by_category: dict[int, list[int]] = defaultdict(list)
    for i, r in enumerate(results):
        by_category[r.category].append(i)
    scored = [i for i, r in enumerate(results) if r.category in SCORED_CATEGORIES]
    notes = [f"BLEU-1 tokens: {bleu_tokenizer_label()}"]
    file_labels = any(results[i].judged is not None for i in scored)
    j_source = "judge" if labels is not None else "file" if file_labels else None
    if labels is not None:
        notes.append(
            f"J: colabench's binary judge ({labels.model}), {labels.runs} run(s), mean ± sample std over runs"
            + (f"; {labels.invalid} invalid verdict(s) counted WRONG" if labels.invalid else "")
            + ("; the file's own labels are shown beside it" if file_labels else "")
        )
    elif file_labels:
        notes.append("J is the file's own recorded label (llm_score / judgment), not a judge run by colabench")
    else:
        notes.append("no J: the file records no labels and no judge is configured (the judge role of [llm])")
    adversarial = by_category.get(ADVERSARIAL, [])
    if adversarial:
        notes.append(f"{len(adversarial)} category-5 (adversarial) question(s) left out of every score")

    def rows(indices: list[int]) -> list[QaResult]:
        return [results[i] for i in indices]

    abstention = None
    if labels is not None and adversarial:
        runs, mean, std = labels.j(adversarial)
        abstention = CategoryScores(
            category="5 (abstention rate)", n=len(adversarial), j_judge_runs=runs, j_judge=mean, j_judge_std=std
        )
    return ScoreReport(
        path=path,
        bleu_tokenizer=bleu_tokenizer_label(),
        n_questions=len(results),
        n_adversarial=len(adversarial),
        categories=[
            _scores(str(c), rows(by_category[c]), labels, by_category[c])
            for c in SCORED_CATEGORIES
            if by_category.get(c)
        ],
        overall=_scores("overall (1-4)", rows(scored), labels, scored),
        abstention=abstention,
        j_source=j_source,
        judge=None
        if labels is None
        else {"model": labels.model, "runs": labels.runs, "invalid": labels.invalid, "prompts": labels.prompts},
        notes=notes,
    )


def score_results_file(path: Path, labels: JudgeLabels | None = None) -> ScoreReport:
    return score_results(read_results_file(path), str(path), labels)
