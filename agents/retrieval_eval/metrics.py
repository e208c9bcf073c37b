"""Retrieval-line metrics, as LongMemEval and the TREC iKAT 2023 overview define them (no LLM).

- recall_any@k: 1 if any gold id is in the top k; recall_all@k: 1 if every gold id is.
- ndcg_lme@k: LongMemEval's NDCG. Binary relevance; DCG = rel_1 + sum_{i>=2} rel_i / log2(i), so ranks 1
  and 2 are both undiscounted; the ideal DCG puts min(|gold|, k) relevant ids first.
- ndcg@k (iKAT, trec_eval style): graded gains, DCG = sum_i g_i / log2(i + 1).
- precision@k, recall@k, reciprocal rank (MRR averages it).
Rankings are lists of ids, best first; a repeated id counts at its first position only.

Session level (LongMemEval defines two; `unit_to_session_metrics` is the second):
- whole sessions as retrieval units: a session's text is one unit; the metrics above apply to the session
  ranking as it is (level `session_whole` of the evaluation).
- its unit->session mapping with an effective k (levels `session_turn2session`, `session_round2session`):
  units (turns or rounds) are ranked, each mapped to its session key; the cut-off k grows to the smallest
  k' whose top k' units hold k distinct keys (or the whole ranking); recall_any / recall_all ask whether any
  / every gold session has a key among the top k' units; NDCG counts unit positions (not deduplicated
  sessions): a unit is relevant when its key is a gold session, the ideal puts every relevant unit first.
  As in the reference, the units of a gold session that are not evidence themselves map to a key of their
  own (not the gold session), so only evidence units make a session hit, and they count as a separate
  distinct key when k' grows.
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


def unit_session_keys(ranked_units: Sequence[str], session_of: Mapping[str, str], gold_units: set[str]) -> list[str]:
    """The session key of every ranked unit (see the module docstring): its session when the unit is gold
    or its session holds no gold unit, else `<session>#non-evidence` (the reference's `noans` ids)."""
    gold_sessions = {session_of[u] for u in gold_units if u in session_of}
    keys = []
    for unit in ranked_units:
        session = session_of.get(unit, unit)
        if unit in gold_units or session not in gold_sessions:
            keys.append(session)
        else:
            keys.append(f"{session}#non-evidence")
    return keys


def effective_k(keys: Sequence[str], k: int) -> int:
    """The smallest k' >= k whose first k' keys hold k distinct ones; past the end: len(keys) + 1 (the
    reference's loop bound), which reads the whole ranking."""
    cut = k
    while cut <= len(keys) and len(set(keys[:cut])) < k:
        cut += 1
    return cut


def unit_to_session_metrics(
    ranked_units: Sequence[str],
    session_of: Mapping[str, str],
    gold_units: set[str],
    ks: Sequence[int],
    n_relevant_units: int | None = None,
) -> dict[str, float]:
    """LongMemEval's unit->session metrics (recall_any@k, recall_all@k, ndcg@k at the effective k) plus
    `effective_k@k`. `ranked_units` is the full unit ranking (a unit once); `session_of` maps each unit to its
    session; `n_relevant_units` is the number of gold units in the corpus (default: the gold units listed)."""
    units = dedupe(ranked_units)
    keys = unit_session_keys(units, session_of, gold_units)
    gold_sessions = {session_of[u] for u in gold_units if u in session_of}
    relevant = len(gold_units) if n_relevant_units is None else n_relevant_units
    out: dict[str, float] = {}
    for k in ks:
        cut = effective_k(keys, k)
        top = set(keys[:cut])
        out[f"recall_any@{k}"] = float(any(s in top for s in gold_sessions))
        out[f"recall_all@{k}"] = float(bool(gold_sessions) and gold_sessions <= top)
        rels = [1.0 if key in gold_sessions else 0.0 for key in keys[:cut]]
        ideal = [1.0] * min(relevant, cut)
        out[f"ndcg@{k}"] = _lme_dcg(rels) / _lme_dcg(ideal) if ideal else 0.0
        out[f"effective_k@{k}"] = float(min(cut, len(keys)))
    return out
