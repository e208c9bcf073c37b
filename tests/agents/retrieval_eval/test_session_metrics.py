"""LongMemEval's session-level definitions, hand-computed on a tiny ranking where they all differ (no database),
and the plain progress lines of `eval retrieval` when stderr is not a terminal."""

from __future__ import annotations

import io
import math

import pytest

from agents.retrieval_eval.granularity import LEVELS, check_granularity
from agents.retrieval_eval.metrics import dedupe, effective_k, lme_metrics, unit_session_keys, unit_to_session_metrics
from cli.progress_lines import ProgressLines

# Sessions A and B hold evidence (turns a1, b1); a2 is a non-evidence turn of A; C and D are distractors.
SESSION_OF = {"a1": "A", "a2": "A", "b1": "B", "c1": "C", "c2": "C", "d1": "D"}
GOLD_TURNS = {"a1", "b1"}
TURN_RANKING = ["a2", "c1", "c2", "a1", "d1", "b1"]
# A whole-session ranker's own ranking of the four sessions.
SESSION_RANKING = ["C", "A", "B", "D"]
KS = [1, 3, 5]


def test_turn_to_session_mapping_with_effective_k_hand_computed() -> None:
    m = unit_to_session_metrics(TURN_RANKING, SESSION_OF, GOLD_TURNS, KS)
    # keys: A#non-evidence, C, C, A, D, B
    # @1: k'=1, only A's non-evidence turn: no hit.
    assert (m["recall_any@1"], m["recall_all@1"], m["ndcg@1"], m["effective_k@1"]) == (0.0, 0.0, 0.0, 1.0)
    # @3: the top 3 hold 2 distinct keys (C twice), so k' grows to 4, which reaches a1: A found, B not;
    # NDCG over turn positions: DCG = 1/log2(4) = 0.5, ideal = 1 + 1 (two evidence turns) = 2.
    assert m["effective_k@3"] == 4.0
    assert (m["recall_any@3"], m["recall_all@3"]) == (1.0, 0.0)
    assert m["ndcg@3"] == pytest.approx(0.25)
    # @5: five distinct keys need all six turns: both sessions found; DCG = 1/log2(4) + 1/log2(6).
    assert m["effective_k@5"] == 6.0
    assert (m["recall_any@5"], m["recall_all@5"]) == (1.0, 1.0)
    assert m["ndcg@5"] == pytest.approx((0.5 + 1 / math.log2(6)) / 2)


def test_best_turn_session_ranking_is_a_different_figure() -> None:
    best = dedupe(SESSION_OF[t] for t in TURN_RANKING)
    assert best == ["A", "C", "D", "B"]
    m = lme_metrics(best, {"A", "B"}, KS)
    # A's non-evidence turn makes A rank first: a hit at 1 that the LongMemEval mapping does not give.
    assert (m["recall_any@1"], m["recall_all@1"], m["ndcg@1"]) == (1.0, 0.0, 1.0)
    assert (m["recall_any@3"], m["recall_all@3"], m["ndcg@3"]) == (1.0, 0.0, pytest.approx(0.5))
    # @5: DCG = 1 (A at 1) + 1/log2(4) (B at 4) = 1.5, ideal 2.
    assert (m["recall_any@5"], m["recall_all@5"], m["ndcg@5"]) == (1.0, 1.0, pytest.approx(0.75))


def test_whole_session_units_hand_computed() -> None:
    m = lme_metrics(SESSION_RANKING, {"A", "B"}, KS)
    assert (m["recall_any@1"], m["recall_all@1"], m["ndcg@1"]) == (0.0, 0.0, 0.0)
    # @3: A at 2 (undiscounted), B at 3 (1/log2 3); ideal 2.
    assert (m["recall_any@3"], m["recall_all@3"]) == (1.0, 1.0)
    assert m["ndcg@3"] == pytest.approx((1 + 1 / math.log2(3)) / 2)


def _reference_style(ranking: list[str], session_of: dict[str, str], gold: set[str], k: int) -> tuple[float, ...]:
    """An independent evaluator in the reference's terms: corpus ids `answer_<s>_<i>` for evidence turns of
    evidence sessions, `noans_<s>_<i>` for their other turns, `<s>_<i>` elsewhere, stripped of the turn suffix."""
    gold_sessions = {session_of[t] for t in gold}
    corpus = sorted(session_of)

    def cid(t: str) -> str:
        s = session_of[t]
        if s not in gold_sessions:
            return f"{s}_{t}"
        return f"{'answer' if t in gold else 'noans'}{s}_{t}"

    stripped = [cid(t).rsplit("_", 1)[0] for t in corpus]
    index = {t: i for i, t in enumerate(corpus)}
    order = [index[t] for t in ranking]
    correct = {cid(t).rsplit("_", 1)[0] for t in gold}
    cut = k
    while cut <= len(stripped) and len({stripped[i] for i in order[:cut]}) < k:
        cut += 1
    found = {stripped[i] for i in order[:cut]}
    rels = [1.0 if stripped[i] in correct else 0.0 for i in order[:cut]]
    ideal = sorted((1.0 if s in correct else 0.0 for s in stripped), reverse=True)[:cut]

    def dcg(r: list[float]) -> float:
        return r[0] + sum(x / math.log2(i) for i, x in enumerate(r[1:], start=2)) if r else 0.0

    return float(bool(correct & found)), float(correct <= found), dcg(rels) / dcg(ideal)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_mapping_agrees_with_a_reference_style_evaluator(k: int) -> None:
    m = unit_to_session_metrics(TURN_RANKING, SESSION_OF, GOLD_TURNS, [k])
    expected = _reference_style(TURN_RANKING, SESSION_OF, GOLD_TURNS, k)
    assert (m[f"recall_any@{k}"], m[f"recall_all@{k}"], m[f"ndcg@{k}"]) == pytest.approx(expected)


def test_non_evidence_units_of_a_gold_session_get_a_key_of_their_own() -> None:
    keys = unit_session_keys(["a2", "a1", "c1"], SESSION_OF, GOLD_TURNS)
    assert keys == ["A#non-evidence", "A", "C"]
    assert effective_k(["C", "C", "C"], 2) == 4  # past the end: the whole ranking is read


def test_levels_name_their_definition() -> None:
    assert LEVELS["turn"] == ("turn", "session_turn2session", "session_best_turn")
    assert LEVELS["round"] == ("round", "session_round2session", "session_best_round")
    assert LEVELS["session"] == ("session_whole",)
    with pytest.raises(ValueError, match="turn, round, session"):
        check_granularity("sentence")


def test_progress_lines_are_plain_and_periodic() -> None:
    now = [0.0]
    out = io.StringIO()
    lines = ProgressLines(out, every=10.0, clock=lambda: now[0])
    for done in range(0, 101):
        now[0] = done * 0.5  # 50 s over the phase
        lines("evaluating", done, 100)
    lines("evaluating", 100, 100)  # a repeated completion is not printed twice
    text = out.getvalue().splitlines()
    assert text[0] == "progress: evaluating 0/100 (0%) 0.0 s"
    assert text[-1] == "progress: evaluating 100/100 (100%) 50.0 s"
    assert len(text) == 6  # start, then every 10 s (20 done apart), the last being the completion
    assert all("\r" not in line and "\x1b" not in line for line in text)
