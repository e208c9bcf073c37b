"""Pure units of the query room: RRF, round robin, the Lucene query builder, terms, recipes, line selection."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agents.memory.raw_turns.declare import RAW_TURNS  # importing agents registers the systems' recipes
from query.errors import UnknownRecipeError
from query.fusion import fuse_rrf
from query.lucene import build_lucene_query, escape_lucene
from query.read_tool import select_lines
from query.recipes import HYBRID, MEMKB, MEMKB_NO_LINKS, MEMKB_NO_STATE, RECIPES, get_recipe, parse_recipes
from query.round_robin import expand_round_robin
from query.terms import bm25_tokens, query_terms


def test_rrf_scores_follow_the_formula_with_one_vote_per_channel() -> None:
    fused = fuse_rrf({"sem": ["a", "b", "c"], "key": ["b", "d", "b"]}, kappa=60)
    scores = {f.item_id: f.score for f in fused}
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)  # rank 2 in sem, rank 1 in key (repeat ignored)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["d"] == pytest.approx(1 / 62)
    assert scores["c"] == pytest.approx(1 / 63)
    assert [f.item_id for f in fused] == ["b", "a", "d", "c"]
    assert fused[0].channel_ranks == {"sem": 2, "key": 1}


def test_rrf_kappa_changes_scores_and_ties_break_by_best_rank_then_channel_order() -> None:
    fused = fuse_rrf({"x": ["a", "b"], "y": ["b", "a"]}, kappa=1)
    assert fused[0].score == pytest.approx(1 / 2 + 1 / 3)
    # a and b tie on score and best rank; a is first in the first channel.
    assert [f.item_id for f in fused] == ["a", "b"]
    with pytest.raises(ValueError):
        fuse_rrf({"x": ["a"]}, kappa=0)


def test_round_robin_takes_one_untaken_document_per_card_per_round() -> None:
    cards = [["d1", "d2", "d3"], ["d1", "d4"], ["d5"]]
    # Round 1: card 1 -> d1, card 2 skips taken d1 -> d4, card 3 -> d5; round 2: card 1 -> d2; ...
    assert expand_round_robin(cards, budget=10) == ["d1", "d4", "d5", "d2", "d3"]
    assert expand_round_robin(cards, budget=2) == ["d1", "d4"]
    assert expand_round_robin([[], ["x"]], budget=5) == ["x"]
    assert expand_round_robin([], budget=5) == []


def test_lucene_builder_escapes_everything_and_drops_stop_words() -> None:
    assert escape_lucene('a+b(c)"d":e\\f/g') == 'a\\+b\\(c\\)\\"d\\"\\:e\\\\f\\/g'
    query = build_lucene_query('What AND (NOT) "asthma" -inhaler* OR title:x~2 ?')
    assert query is not None
    # Operators are lower-cased words (and here stop words), syntax characters are gone.
    assert query.split() == ["asthma", "inhaler", "title", "x", "2"]
    assert build_lucene_query("?? the of and !!") is None
    assert build_lucene_query("   ") is None
    assert build_lucene_query("ignored", keywords=["heart attack", "aspirin"]) == '"heart attack" aspirin'


def test_terms_keep_possessive_and_stem() -> None:
    assert query_terms("What is Alzheimer's disease?") == ["alzheimer's", "alzheimer", "disease"]
    assert bm25_tokens("The doctor's advice, the doctor") == ["doctor", "advice", "doctor"]


def test_recipes_are_frozen_and_named() -> None:
    assert set(RECIPES) == {
        "HYBRID", "SEMANTIC", "KEYWORD", "MEMKB", "MEMKB_NO_STATE", "MEMKB_NO_LINKS", "MEMKB_RAW_TURNS", "RAW_TURNS",
        "MEM0", "GRAPHITI", "GRAPHITI_RRF", "AMEM", "LANGMEM", "LANGMEM_DELETES",
    }
    assert get_recipe("GRAPHITI").sdk_ranking and not get_recipe("GRAPHITI_RRF").sdk_ranking
    # MemKB reads Mem0's memories, as in the paper; its raw-turn variant needs no LLM
    assert {MEMKB.memory_system, MEMKB_NO_STATE.memory_system, MEMKB_NO_LINKS.memory_system} == {"mem0"}
    assert get_recipe("MEMKB_RAW_TURNS").memory_system == "raw_turns" and RAW_TURNS.memory_system == "raw_turns"
    assert {get_recipe(n).memory_system for n in ("MEM0", "GRAPHITI", "AMEM")} == {"mem0", "graphiti", "amem"}
    assert get_recipe("memkb-no-links") is MEMKB_NO_LINKS
    assert MEMKB.knowledge_channels == ("memory_linked", "semantic", "keyword") and MEMKB.return_states
    assert not MEMKB_NO_STATE.return_states and "memory_linked" in MEMKB_NO_STATE.knowledge_channels
    assert RAW_TURNS.knowledge_channels == () and RAW_TURNS.return_memories
    assert HYBRID.kappa == 60 and not HYBRID.needs_profile and MEMKB.needs_profile
    with pytest.raises(ValidationError):
        HYBRID.kappa = 1  # type: ignore[misc]
    with pytest.raises(UnknownRecipeError, match="HYBRID"):
        get_recipe("BM25")
    assert [r.name for r in parse_recipes("keyword, hybrid,KEYWORD")] == ["KEYWORD", "HYBRID"]


def test_select_lines_respects_line_and_token_limits() -> None:
    lines = [f"line {i}" for i in range(1, 301)]
    out, truncated, n_tokens = select_lines(lines, 1, 500)
    assert len(out) == 100 and truncated and n_tokens == 200  # "line" + number: 2 tokens a line
    out, truncated, _ = select_lines(lines, 250, 100)
    assert out == lines[249:] and not truncated  # running past the end is not truncation
    long_lines = ["word " * 1000] * 5
    out, truncated, n_tokens = select_lines(long_lines, 1, 5)
    assert len(out) == 3 and truncated and n_tokens == 3000
    huge = ["alpha " * 5000]
    out, truncated, n_tokens = select_lines(huge, 1, 1)
    assert truncated and n_tokens == 3000 and out[0].startswith("alpha alpha")
