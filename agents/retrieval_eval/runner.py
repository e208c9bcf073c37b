"""The retrieval-line evaluation: every item of a prepared dataset under every recipe, no LLM.

- knowledge line (recipes with knowledge channels, datasets with a corpus): the item's question is searched
  as is (k = the largest k asked, at least 5); recall_any / recall_all / NDCG (LongMemEval's) of the gold
  documents at every k, and `first_search_hit@5`: a gold document among the 5 documents of that first search.
- memory line (every recipe ranks memory cards with its memory channels): the question ranks all the
  profile's visible cards of the granularity's system (agents.retrieval_eval.granularity: turn, round or
  session cards); each returned card is resolved to its turns and sessions through DERIVED_FROM in the graph
  (not through what the retriever reported), and scored at the granularity's levels: the unit level, the
  session level(s) under LongMemEval's definitions, and the best-unit session ranking as a named extra.
  iKAT adds the PTKB ranking (nDCG@3, P@3, Recall@3, MRR) over cards derived from PTKB statements (turn
  granularity only).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from agents.retrieval_eval.datasets import EvalItem, PreparedDataset
from agents.retrieval_eval.granularity import LEVELS, memory_granularity, unit_recipe
from agents.retrieval_eval.metrics import dedupe, ikat_metrics, lme_metrics, unit_session_keys, unit_to_session_metrics
from agents.retrieval_eval.report import ItemRow
from graph.cypher_files import load_cypher
from query.errors import QueryError
from query.recipes import Recipe
from query.retriever import MAX_EVAL_K, MAX_K, Retriever

FIRST_SEARCH_K = 5


def evaluate_items(
    retriever: Retriever,
    dataset: PreparedDataset,
    recipes: Sequence[Recipe],
    ks: Sequence[int],
    progress: Callable[[int, int], None] | None = None,
    granularity: str = "turn",
) -> list[ItemRow]:
    """Rows for every (item, recipe, line, level) the dataset and recipe support; the memory line at
    `granularity` (turn, round or session)."""
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
                rows.extend(_memory_rows(retriever, dataset, recipe, item, ks, granularity))
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
        gold=sorted(gold),  # a set: sorted, so a report is byte-reproducible
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
    row.list_sizes = dict(result.list_sizes)
    gold = set(item.gold_docs)
    row.metrics = lme_metrics(row.ranked, gold, ks)
    row.metrics[f"first_search_hit@{FIRST_SEARCH_K}"] = float(any(d in gold for d in row.ranked[:FIRST_SEARCH_K]))
    return row


def _memory_rows(
    retriever: Retriever,
    dataset: PreparedDataset,
    recipe: Recipe,
    item: EvalItem,
    ks: list[int],
    granularity: str = "turn",
) -> list[ItemRow]:
    if item.ptkb_grades is not None:
        return _ptkb_rows(retriever, recipe, item, ks)
    grain = memory_granularity(recipe, granularity)
    rows = [_base(item, recipe, "memory", level, []) for level in LEVELS[grain]]
    skip = item.skip_memory or (None if item.profile_id else "no profile")
    if skip:
        for row in rows:
            row.skipped = skip
        return rows
    assert item.profile_id is not None
    search = unit_recipe(recipe, grain)
    started = time.perf_counter()
    try:
        result = retriever.search_memories(
            search, item.question, profile_id=item.profile_id, k=MAX_EVAL_K, before_turn_id=item.cutoff_turn_id
        )
    except QueryError as exc:
        for row in rows:
            row.skipped = f"search failed: {exc}"
        return rows
    ms = round((time.perf_counter() - started) * 1000, 3)
    memory_ids = [m.memory_id for m in result.memories]
    sources = _sources(retriever, memory_ids)
    top = max(ks)
    if grain == "turn":
        units = dedupe(t for mid in memory_ids for t, _ in sources.get(mid, []))
        session_of = {t: s for mid in memory_ids for t, s in sources.get(mid, [])} | item.turn_sessions
        gold_units = list(item.gold_turns)
        present = _units_of_turns(retriever, search.memory_system, gold_units)
        n_present = sum(1 for t in gold_units if present.get(t))
        no_gold = "evidence only in assistant turns (no turn card holds it; see --granularity round)"
    elif grain == "round":
        units = [mid for mid in memory_ids if sources.get(mid)]
        session_of = {mid: sources[mid][0][1] for mid in units}
        holders = _units_of_turns(retriever, search.memory_system, item.evidence_turns)
        for turn, cards in holders.items():
            session_of.update({card: item.turn_sessions[turn] for card in cards if turn in item.turn_sessions})
        gold_units = list(dict.fromkeys(m for t in item.evidence_turns for m in holders.get(t, [])))
        n_present = len(gold_units)
        no_gold = "no round card holds an evidence turn"
    else:
        units = dedupe(s for mid in memory_ids for _, s in sources.get(mid, []))
        session_of = {}
        gold_units = list(item.gold_sessions)
        n_present = len(gold_units)
        no_gold = "no gold session (its evidence is only in assistant turns, which session units leave out)"
    gold_sessions = list(dict.fromkeys(session_of[u] for u in gold_units if u in session_of))
    for row in rows:
        row.ms = ms
        row.notes = list(result.notes)
        row.list_sizes = dict(result.list_sizes)
        if not gold_units:
            row.skipped = no_gold
            continue
        gold = set(gold_units)
        if row.level in ("turn", "round", "session_whole"):
            row.gold = sorted(gold_units)
            row.ranked = units[:top]
            row.metrics = lme_metrics(units, gold, ks)
        elif row.level.endswith("2session"):
            row.gold = sorted(gold_sessions)
            row.metrics = unit_to_session_metrics(units, session_of, gold, ks, n_relevant_units=n_present)
            cut = int(max(row.metrics[f"effective_k@{k}"] for k in ks))
            row.ranked = unit_session_keys(units[:cut], session_of, gold)
            row.notes.append("ranked = the session keys of the units read at the largest effective k")
        else:  # session_best_*: sessions by their best unit, deduplicated
            best = dedupe(session_of[u] for u in units if u in session_of)
            row.gold = sorted(gold_sessions)
            row.ranked = best[:top]
            row.metrics = lme_metrics(best, set(gold_sessions), ks)
    return rows


def _ptkb_rows(retriever: Retriever, recipe: Recipe, item: EvalItem, ks: list[int]) -> list[ItemRow]:
    """iKAT: the turn level and the PTKB ranking (turn cards only; its gold lives in one session)."""
    rows = [_base(item, recipe, "memory", level, item.gold_turns) for level in ("turn", "ptkb")]
    skip = item.skip_memory or (None if item.profile_id else "no profile")
    if skip:
        for row in rows:
            row.skipped = skip
        return rows
    assert item.profile_id is not None and item.ptkb_grades is not None
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
    sources = _sources(retriever, memory_ids)
    turn_ranking = dedupe(t for mid in memory_ids for t, _ in sources.get(mid, []))
    top = max(ks)
    turn, ptkb = rows
    for row in rows:
        row.ms = ms
        row.notes = list(result.notes)
    turn.ranked = turn_ranking[:top]
    turn.metrics = lme_metrics(turn_ranking, set(item.gold_turns), ks)
    prefix = f"{item.profile_id}:ptkb:"
    ptkb.ranked = [t for t in turn_ranking if t.startswith(prefix)]
    ptkb.metrics = ikat_metrics(ptkb.ranked, item.ptkb_grades)
    ptkb.notes.append(f"relevance from {item.relevance_source}")
    return rows


def _sources(retriever: Retriever, memory_ids: list[str]) -> dict[str, list[tuple[str, str]]]:
    """memory id -> its (turn, session) pairs, read from the graph's DERIVED_FROM relationships."""
    if not memory_ids:
        return {}
    with retriever.driver.session(database=retriever.database) as session:
        rows = list(session.run(load_cypher("query/memory_sources"), memory_ids=memory_ids))
    return {r["memory_id"]: list(zip(r["turn_ids"], r["session_ids"], strict=True)) for r in rows}


def _units_of_turns(retriever: Retriever, system: str, turn_ids: list[str]) -> dict[str, list[str]]:
    """turn id -> the live cards of `system` derived from it."""
    if not turn_ids:
        return {}
    out: dict[str, list[str]] = {}
    with retriever.driver.session(database=retriever.database) as session:
        for r in session.run(load_cypher("query/units_of_turns"), system=system, turn_ids=turn_ids):
            out.setdefault(r["turn_id"], []).append(r["memory_id"])
    return out
