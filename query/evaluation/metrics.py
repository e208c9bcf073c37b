"""Retrieval-line metrics, as LongMemEval and the TREC iKAT 2023 overview define them (no LLM).

- recall_any@k: 1 if any gold id is in the top k; recall_all@k: 1 if every gold id is.
- ndcg_lme@k: LongMemEval's NDCG. Binary relevance; DCG = rel_1 + sum_{i>=2} rel_i / log2(i), so ranks 1
  and 2 are both undiscounted; the ideal DCG puts min(|gold|, k) relevant ids first.
- ndcg@k (iKAT, trec_eval style): graded gains, DCG = sum_i g_i / log2(i + 1).
- precision@k, recall@k, reciprocal rank (MRR averages it).
Rankings are lists of ids, best first; a repeated id counts at its first position only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence


def dedupe(ranked: Iterable[str]) -> list[str]:
    """Ids in order of first appearance."""
    return list(dict.fromkeys(ranked))


def recall_any(ranked: Sequence[str], gold: set[str], k: int) -> float:
    return float(any(item in gold for item in dedupe(ranked)[:k]))


def recall_all(ranked: Sequence[str], gold: set[str], k: int) -> float:
    top = set(dedupe(ranked)[:k])
    return float(bool(gold) and gold <= top)


def _lme_dcg(relevances: Sequence[float]) -> float:
    if not relevances:
        return 0.0
    return relevances[0] + sum(rel / math.log2(i) for i, rel in enumerate(relevances[1:], start=2))


def ndcg_lme(ranked: Sequence[str], gold: set[str], k: int) -> float:
    """LongMemEval's NDCG@k (see the module docstring); 0 when there is no gold."""
    if not gold:
        return 0.0
    rels = [1.0 if item in gold else 0.0 for item in dedupe(ranked)[:k]]
    ideal = [1.0] * min(len(gold), k)
    return _lme_dcg(rels) / _lme_dcg(ideal)


def ndcg_graded(ranked: Sequence[str], grades: Mapping[str, float], k: int) -> float:
    """trec_eval-style nDCG@k with graded gains; 0 when nothing is relevant."""
    gains = [float(grades.get(item, 0.0)) for item in dedupe(ranked)[:k]]
    dcg = sum(g / math.log2(i + 1) for i, g in enumerate(gains, start=1))
    ideal_gains = sorted((float(g) for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal_gains, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def precision_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Relevant ids in the top k, divided by k (trec_eval P@k: a short list counts its missing ranks)."""
    return sum(1 for item in dedupe(ranked)[:k] if item in relevant) / k


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    if not relevant:
        return 0.0
    return sum(1 for item in dedupe(ranked)[:k] if item in relevant) / len(relevant)


def reciprocal_rank(ranked: Sequence[str], relevant: set[str]) -> float:
    for position, item in enumerate(dedupe(ranked), start=1):
        if item in relevant:
            return 1.0 / position
    return 0.0


def lme_metrics(ranked: Sequence[str], gold: set[str], ks: Sequence[int]) -> dict[str, float]:
    """recall_any@k, recall_all@k and ndcg@k (LongMemEval's) for every k."""
    out: dict[str, float] = {}
    for k in ks:
        out[f"recall_any@{k}"] = recall_any(ranked, gold, k)
        out[f"recall_all@{k}"] = recall_all(ranked, gold, k)
        out[f"ndcg@{k}"] = ndcg_lme(ranked, gold, k)
    return out


def ikat_metrics(ranked: Sequence[str], grades: Mapping[str, float], k: int = 3) -> dict[str, float]:
    """The iKAT 2023 PTKB-ranking measures: nDCG@3, P@3, Recall@3 and reciprocal rank."""
    relevant = {item for item, grade in grades.items() if grade > 0}
    return {
        f"ndcg@{k}": ndcg_graded(ranked, grades, k),
        f"P@{k}": precision_at(ranked, relevant, k),
        f"recall@{k}": recall_at(ranked, relevant, k),
        "mrr": reciprocal_rank(ranked, relevant),
    }
