"""The retrieval-line evaluation: every item of a prepared dataset under every recipe, no LLM.

- knowledge line (recipes with knowledge channels, datasets with a corpus): the item's question is searched
  as is (k = the largest k asked, at least 5); recall_any / recall_all / NDCG (LongMemEval's) of the gold
  documents at every k, and `first_search_hit@5`: a gold document among the 5 documents of that first search.
- memory line (every recipe ranks memory cards with its memory channels): the question ranks all the
  profile's visible cards; each returned card is resolved to its turns and sessions through DERIVED_FROM in
  the graph (not through what the retriever reported), and the turn and session rankings are scored against
  the gold turns and sessions. iKAT adds the PTKB ranking (nDCG@3, P@3, Recall@3, MRR) over cards derived
  from PTKB statements.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from graph.cypher_files import load_cypher
from query.errors import QueryError
from query.evaluation.datasets import EvalItem, PreparedDataset
from query.evaluation.metrics import dedupe, ikat_metrics, lme_metrics
from query.evaluation.report import ItemRow
from query.recipes import Recipe
from query.retriever import MAX_EVAL_K, MAX_K, Retriever

FIRST_SEARCH_K = 5


def evaluate_items(
    retriever: Retriever,
    dataset: PreparedDataset,
    recipes: Sequence[Recipe],
    ks: Sequence[int],
    progress: Callable[[int, int], None] | None = None,
) -> list[ItemRow]:
    """Rows for every (item, recipe, line, level) the dataset and recipe support."""
    ks = sorted(set(ks))
    depth = min(MAX_K, max(max(ks), FIRST_SEARCH_K))
    rows: list[ItemRow] = []
    total = len(dataset.items) * len(recipes)
    done = 0
    for recipe in recipes:
        for item in dataset.items:
            if dataset.has_knowledge and recipe.searches_knowledge:
                rows.append(_knowledge_row(retriever, dataset, recipe, item, ks, depth))
            if dataset.has_memory and recipe.memory_channels:
                rows.extend(_memory_rows(retriever, dataset, recipe, item, ks))
            done += 1
            if progress:
                progress(done, total)
    return rows


def _base(item: EvalItem, recipe: Recipe, line: str, level: str, gold: list[str]) -> ItemRow:
    return ItemRow(
        item_id=item.item_id,
        dataset=item.dataset,
        group=item.group or item.dataset,
        type=item.type,
        recipe=recipe.name,
        line=line,
        level=level,
        gold=gold,
    )


def _knowledge_row(
    retriever: Retriever, dataset: PreparedDataset, recipe: Recipe, item: EvalItem, ks: list[int], depth: int
) -> ItemRow:
    row = _base(item, recipe, "knowledge", "document", item.gold_docs)
    if item.skip_knowledge:
        row.skipped = item.skip_knowledge
        return row
    if recipe.needs_profile and not item.profile_id:
        row.skipped = "the recipe needs a profile and the item has none"
        return row
    started = time.perf_counter()
    try:
        result = retriever.search(
            recipe,
            item.question,
            profile_id=item.profile_id if recipe.needs_profile else None,
            k=depth,
            before_turn_id=item.cutoff_turn_id if recipe.needs_profile else None,
            corpus=dataset.corpus,
        )
    except QueryError as exc:
        row.skipped = f"search failed: {exc}"
        return row
    row.ms = round((time.perf_counter() - started) * 1000, 3)
    row.ranked = [hit.doc_id for hit in result.documents]
    row.notes = list(result.notes)
    gold = set(item.gold_docs)
    row.metrics = lme_metrics(row.ranked, gold, ks)
    row.metrics[f"first_search_hit@{FIRST_SEARCH_K}"] = float(any(d in gold for d in row.ranked[:FIRST_SEARCH_K]))
    return row


def _memory_rows(
    retriever: Retriever, dataset: PreparedDataset, recipe: Recipe, item: EvalItem, ks: list[int]
) -> list[ItemRow]:
    # iKAT gold lives in one session (the PTKB statements), so its session level would say nothing.
    levels = ["turn", "ptkb"] if item.ptkb_grades is not None else ["session", "turn"]
    golds = {"session": item.gold_sessions, "turn": item.gold_turns, "ptkb": item.gold_turns}
    rows = [_base(item, recipe, "memory", level, golds[level]) for level in levels]
    skip = item.skip_memory or (None if item.profile_id else "no profile")
    if skip:
        for row in rows:
            row.skipped = skip
        return rows
    assert item.profile_id is not None
    started = time.perf_counter()
    try:
        result = retriever.search_memories(
            recipe, item.question, profile_id=item.profile_id, k=MAX_EVAL_K, before_turn_id=item.cutoff_turn_id
        )
    except QueryError as exc:
        for row in rows:
            row.skipped = f"search failed: {exc}"
        return rows
    ms = round((time.perf_counter() - started) * 1000, 3)
    memory_ids = [m.memory_id for m in result.memories]
    turns_of, sessions_of = _resolve_sources(retriever, memory_ids)
    turn_ranking = dedupe(t for mid in memory_ids for t in turns_of.get(mid, []))
    session_ranking = dedupe(s for mid in memory_ids for s in sessions_of.get(mid, []))
    top = max(ks)
    for row in rows:
        row.ms = ms
        row.notes = list(result.notes)
        if row.level != "session" and item.skip_turn_level:
            row.skipped = item.skip_turn_level
            continue
        if row.level == "session":
            row.ranked = session_ranking[:top]
            row.metrics = lme_metrics(session_ranking, set(item.gold_sessions), ks)
        elif row.level == "turn":
            row.ranked = turn_ranking[:top]
            row.metrics = lme_metrics(turn_ranking, set(item.gold_turns), ks)
        else:
            assert item.ptkb_grades is not None
            prefix = f"{item.profile_id}:ptkb:"
            ptkb_ranking = [t for t in turn_ranking if t.startswith(prefix)]
            row.ranked = ptkb_ranking
            row.metrics = ikat_metrics(ptkb_ranking, item.ptkb_grades)
            row.notes.append(f"relevance from {item.relevance_source}")
    return rows


def _resolve_sources(retriever: Retriever, memory_ids: list[str]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """memory id -> its turns and their sessions, read from the graph's DERIVED_FROM relationships."""
    if not memory_ids:
        return {}, {}
    with retriever.driver.session(database=retriever.database) as session:
        rows = list(session.run(load_cypher("query/memory_sources"), memory_ids=memory_ids))
    turns = {r["memory_id"]: list(r["turn_ids"]) for r in rows}
    sessions = {r["memory_id"]: list(dict.fromkeys(r["session_ids"])) for r in rows}
    return turns, sessions
