"""Golden, hand-computed cases for the retrieval-line metrics (no database)."""

from __future__ import annotations

import math

import pytest

from agents.retrieval_eval.metrics import (
    ikat_metrics,
    lme_metrics,
    ndcg_graded,
    ndcg_lme,
    precision_at,
    recall_all,
    recall_any,
    reciprocal_rank,
)

# The LongMemEval survey's running example, question edced276: two evidence sessions (New York, Hawaii);
# the top 5 retrieved are a distractor, evidence 1, a distractor, evidence 2, a distractor.
EDCED276_RANKING = ["ultrachat_470709", "answer_60e8941a_2", "5774bbb1", "answer_60e8941a_1", "sharegpt_xxx"]
EDCED276_GOLD = {"answer_60e8941a_2", "answer_60e8941a_1"}


def test_edced276_hand_computed_recall_and_ndcg() -> None:
    m = lme_metrics(EDCED276_RANKING, EDCED276_GOLD, [1, 3, 5])
    # @1: only a distractor.
    assert (m["recall_any@1"], m["recall_all@1"], m["ndcg@1"]) == (0.0, 0.0, 0.0)
    # @3: New York found, Hawaii missed; DCG = 0 + 1/log2(2) + 0 = 1, IDCG = 1 + 1/log2(2) = 2.
    assert (m["recall_any@3"], m["recall_all@3"]) == (1.0, 0.0)
    assert m["ndcg@3"] == pytest.approx(0.5)
    # @5: both found; DCG = 1 + 1/log2(4) = 1.5, IDCG = 2.
    assert (m["recall_any@5"], m["recall_all@5"]) == (1.0, 1.0)
    assert m["ndcg@5"] == pytest.approx(0.75)


def test_lme_ndcg_does_not_discount_the_first_two_ranks() -> None:
    assert ndcg_lme(["g", "x"], {"g"}, 2) == ndcg_lme(["x", "g"], {"g"}, 2) == 1.0
    assert ndcg_lme(["x", "y", "g"], {"g"}, 3) == pytest.approx(1 / math.log2(3))
    assert ndcg_lme(["x"], set(), 1) == 0.0


def test_repeated_ids_count_once_at_their_first_position() -> None:
    ranked = ["s1", "s1", "s2", "s3"]
    assert recall_all(ranked, {"s1", "s2"}, 2) == 1.0  # deduplicated: s1, s2
    assert recall_any(ranked, {"s3"}, 2) == 0.0


def test_ikat_ptkb_measures_hand_computed() -> None:
    ranked = ["p3", "p1", "p7", "p2"]
    grades = {"p1": 1, "p2": 1, "p5": 0}
    m = ikat_metrics(ranked, grades)
    # DCG@3 = 0 + 1/log2(3) + 0; IDCG@3 = 1 + 1/log2(3).
    assert m["ndcg@3"] == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert m["P@3"] == pytest.approx(1 / 3)
    assert m["recall@3"] == pytest.approx(1 / 2)
    assert m["mrr"] == pytest.approx(1 / 2)
    assert precision_at(["p1"], {"p1"}, 3) == pytest.approx(1 / 3)
    assert reciprocal_rank(["a", "b"], {"c"}) == 0.0
    assert ndcg_graded(["a"], {"a": 2, "b": 1}, 1) == 1.0
