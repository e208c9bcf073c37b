"""Feeding modes: what the reader gets for a question.

- oracle: the evidence sessions only (whole);
- full: the whole history (every session, whole);
- rag: the top k units (rounds or sessions) of the question's own history, ranked for the question with a
  recipe's memory channels (query.expansion.unit_ranking), optionally with fact-expanded keys and a time
  range read from the question (`rules`, or `llm` as LongMemEval does it). The retrieval figures of exactly
  those ranked units are computed beside the answer: recall_any / recall_all / NDCG (LongMemEval's) at k, at
  the unit level (units holding an evidence turn, user or assistant) and at the session level (sessions of
  the ranked units vs evidence sessions).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from agents.qa.errors import QaError
from agents.qa.history import HistorySession, QaQuestion
from agents.qa.units import GRANULARITIES, HistoryUnit, build_units
from agents.retrieval_eval.metrics import dedupe, lme_metrics
from graph.projection import VectorEncoder
from query.expansion.keys import FactExtractor, check_key_expansion, expand_keys
from query.expansion.time_range import (
    TimeRangeReader,
    TimeRangeReading,
    check_time_aware,
    prune_by_time,
    read_time_range_by_rules,
)
from query.expansion.unit_ranking import UnitIndex
from query.query_vectors import QueryEmbedder
from query.recipes import get_recipe

Feed = Literal["oracle", "full", "rag"]
FEEDS: tuple[str, ...] = ("oracle", "full", "rag")


class FeedConfig(BaseModel):
    """How a run feeds its reader (part of the run's identity)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    feed: Feed
    recipe: str = "RAW_TURNS"
    k: int = Field(default=10, ge=1, le=200)
    granularity: Literal["round", "session"] = "round"
    key_expansion: Literal["none", "facts"] = "none"
    time_aware: Literal["none", "rules", "llm"] = "none"  # which definition reads the time range

    @field_validator("time_aware", mode="before")
    @classmethod
    def _time_aware_name(cls, value: object) -> object:
        # True/False: the flag this option was before it named its definition (True meant the rules)
        return check_time_aware(value) if isinstance(value, bool) else value

    def label(self) -> str:
        """A short name for tables and charts: `oracle`, `full`, `rag RAW_TURNS@10 round +facts +time(llm)`."""
        if self.feed != "rag":
            return self.feed
        parts = [f"rag {self.recipe}@{self.k} {self.granularity}"]
        if self.key_expansion == "facts":
            parts.append("+facts")
        if self.time_aware != "none":
            parts.append(f"+time({self.time_aware})")
        return " ".join(parts)


def make_feed_config(
    feed: str, recipe: str, k: int, granularity: str, key_expansion: str, time_aware: str | bool
) -> FeedConfig:
    """Validated options (typed QaError naming the option); `time_aware` is none | rules | llm."""
    if feed not in FEEDS:
        raise QaError(f"--feed must be one of {', '.join(FEEDS)}, got {feed!r}")
    if granularity not in GRANULARITIES:
        raise QaError(f"--granularity must be one of {', '.join(GRANULARITIES)}, got {granularity!r}")
    try:
        expansion = check_key_expansion(key_expansion)
        time_source = check_time_aware(time_aware)
    except ValueError as exc:
        raise QaError(str(exc)) from exc
    if feed == "rag":
        chosen = get_recipe(recipe)  # UnknownRecipeError lists the names
        if not set(chosen.memory_channels) & {"semantic", "keyword"}:
            raise QaError(f"recipe {chosen.name} ranks no memory units (no memory channels)")
        recipe = chosen.name
    elif expansion != "none" or time_source != "none":
        raise QaError("--key-expansion and --time-aware change retrieval: they need --feed rag")
    if not 1 <= k <= 200:
        raise QaError(f"--k must lie in 1..200, got {k}")
    return FeedConfig(
        feed=feed,  # type: ignore[arg-type]
        recipe=recipe if feed == "rag" else "",
        k=k if feed == "rag" else 10,
        granularity=granularity if feed == "rag" else "session",  # type: ignore[arg-type]
        key_expansion=expansion if feed == "rag" else "none",  # type: ignore[arg-type]
        time_aware=time_source if feed == "rag" else "none",  # type: ignore[arg-type]
    )


@dataclass
class FedUnits:
    units: list[HistoryUnit]
    details: dict[str, Any] = field(default_factory=dict)
    retrieval_ms: float = 0.0


@dataclass
class PreparedQuestion:
    """A question's units and (rag) its unit index, built before the timed per-question work."""

    question: QaQuestion
    sessions: list[HistorySession]
    units: list[HistoryUnit]
    index: UnitIndex | None = None
    facts: dict[str, list[str]] = field(default_factory=dict)
    time_reading: TimeRangeReading | None = None  # time-aware rag: the range read off the question
    query_vector: np.ndarray | None = None  # rag, semantic channel: the question embedded beforehand (one batch)


def prepare_question(
    config: FeedConfig,
    question: QaQuestion,
    sessions: Sequence[HistorySession],
    *,
    encoder: VectorEncoder | None,
    extractor: FactExtractor | None,
    query_embedder: QueryEmbedder | None = None,
    time_reader: TimeRangeReader | None = None,
    query_vector: np.ndarray | None = None,
) -> PreparedQuestion:
    """Units of the question's history and, for rag, their (expanded) keys embedded and indexed, and the
    question's time range read (time-aware: `time_reader` for llm, the rules otherwise). `query_vector`, the
    question's embedding when the caller embedded the questions together, spares the ranking its own call."""
    if config.feed != "rag":
        return PreparedQuestion(question, list(sessions), build_units(sessions, "session"))
    units = build_units(sessions, config.granularity)
    ids = [u.unit_id for u in units]
    texts = {u.unit_id: u.text for u in units}
    facts: dict[str, list[str]] = {}
    keys = texts
    if config.key_expansion == "facts":
        if extractor is None:
            raise QaError("--key-expansion facts extracts facts with an LLM: configure the `memory` role endpoint")
        keys, facts = expand_keys(ids, texts, extractor, {u.unit_id: u.started_at for u in units})
    recipe = get_recipe(config.recipe)
    channels = [c for c in recipe.memory_channels if c in ("semantic", "keyword")]
    index = UnitIndex(ids, [keys[i] for i in ids], channels=channels, encoder=encoder, query_embedder=query_embedder)
    reading = None
    if config.time_aware == "llm":
        if time_reader is None:
            raise QaError("--time-aware llm reads the time range with an LLM: configure the `memory` role endpoint")
        reading = time_reader(question.question, question.asked_on)
    elif config.time_aware == "rules":
        reading = read_time_range_by_rules(question.question, question.asked_on)
    return PreparedQuestion(question, list(sessions), units, index, facts, reading, query_vector)


def feed_units(config: FeedConfig, prepared: PreparedQuestion) -> FedUnits:
    """The units the reader gets, and the details recorded with the answer (retrieval figures for rag)."""
    question = prepared.question
    if config.feed == "full":
        return FedUnits(prepared.units, {"feed": "full", "retrieval": None})
    if config.feed == "oracle":
        evidence = set(question.evidence_session_ids)
        units = [u for u in prepared.units if u.session_id in evidence]
        details: dict[str, Any] = {"feed": "oracle", "retrieval": None}
        if not units:
            details["note"] = "no evidence session in the graph for this question: the reader got nothing"
        return FedUnits(units, details)
    assert prepared.index is not None
    started = time.perf_counter()
    recipe = get_recipe(config.recipe)
    candidates = [u.unit_id for u in prepared.units]
    details = {"feed": "rag", "n_candidates": len(candidates)}
    among = None
    reading = prepared.time_reading
    if reading is not None:
        kept, note = prune_by_time(candidates, {u.unit_id: u.day for u in prepared.units}, reading.time_range)
        details["time_range"] = reading.details()
        details["time_note"] = reading.note(note)
        details["n_after_time_pruning"] = len(kept)
        among = kept if len(kept) < len(candidates) else None
    ranked = prepared.index.rank(question.question, recipe.kappa, among, prepared.query_vector)
    top = [unit_id for unit_id, _ in ranked[: config.k]]
    retrieval_ms = (time.perf_counter() - started) * 1000
    by_id = {u.unit_id: u for u in prepared.units}
    units = [by_id[i] for i in top]
    details["ranked_unit_ids"] = top
    details["retrieval"] = retrieval_figures(config, prepared, [i for i, _ in ranked])
    details["retrieval_ms"] = round(retrieval_ms, 3)
    return FedUnits(units, details, retrieval_ms)


def retrieval_figures(config: FeedConfig, prepared: PreparedQuestion, ranked: Sequence[str]) -> dict[str, Any]:
    """recall_any / recall_all / NDCG at k of the ranked units, per level; `skipped` says why there is none."""
    question = prepared.question
    if question.abstention:
        return {"skipped": "abstention question (no evidence to retrieve)"}
    evidence_turns = set(question.evidence_turn_ids)
    evidence_sessions = set(question.evidence_session_ids)
    if not evidence_turns and not evidence_sessions:
        return {"skipped": "no evidence turn or session"}
    by_id = {u.unit_id: u for u in prepared.units}
    k = config.k
    out: dict[str, Any] = {"k": k}
    gold_units = {u.unit_id for u in prepared.units if evidence_turns & set(u.turn_ids)}
    if config.granularity == "session":
        gold_units = {u.unit_id for u in prepared.units if u.session_id in evidence_sessions}
    if gold_units:
        metrics = lme_metrics(list(ranked), gold_units, [k])
        out["unit"] = {name.partition("@")[0]: value for name, value in metrics.items()}
    sessions = dedupe(by_id[i].session_id for i in ranked[:k] if i in by_id)
    if evidence_sessions:
        metrics = lme_metrics(sessions, evidence_sessions, [len(sessions) or 1])
        out["session"] = {
            "recall_any": metrics[f"recall_any@{len(sessions) or 1}"],
            "recall_all": metrics[f"recall_all@{len(sessions) or 1}"],
        }
        out["session_note"] = f"sessions of the top {k} units ({len(sessions)} distinct)"
    return out
