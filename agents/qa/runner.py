"""`eval qa` end to end: ingest the LongMemEval file if needed, state the run (QaRunStarted), then for each
question not done yet feed the reader, record its answer (QaAnswered), judge it under its type's rule and
record the verdict (QaAnswerJudged). A rerun of the same command has the same run id and skips every
question already answered and validly judged. Without an LLM, `retrieval_only` computes the rag feed's
retrieval figures and records nothing."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.judging.lme_qa_judge import judge_qa_answer
from agents.llm.client import LLMClient
from agents.prompts.registry import PromptSet
from agents.qa.errors import QaError
from agents.qa.facts import llm_fact_extractor
from agents.qa.feeds import FeedConfig, PreparedQuestion, feed_units, prepare_question
from agents.qa.history import HistorySession, QaQuestion, load_histories, load_questions
from agents.qa.prompts import QaPrompts
from agents.qa.reader import READERS, read_answer
from agents.qa.summary import AnswerRow, QaRunSummary, answer_rows, summarise_run
from agents.qa.time_range import llm_time_range_reader
from agents.retrieval_eval.datasets import prepare_dataset
from graph.events import NewEvent, QaAnswered, QaRunStarted
from graph.hashing import canonical_json, text_sha256
from graph.store import EventStore
from query.expansion.keys import FactExtractor
from query.expansion.time_range import TimeRangeReader
from query.query_vectors import QueryEmbedder
from query.recipes import get_recipe

ACTOR = "eval:qa"
Say = Callable[[str], None]


@dataclass
class QaRunOutcome:
    qa_run_id: str
    config: dict[str, Any]
    summary: QaRunSummary
    answered_now: int = 0
    judged_now: int = 0
    skipped_done: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    per_question_ms: list[float] = field(default_factory=list)
    llm_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    retrieval_only: bool = False
    # summed over the questions of this pass: feed (ranking), reader, judge, append (log writes), in ms
    phase_ms: dict[str, float] = field(default_factory=dict)
    # time-aware: questions of this pass by reading status (range / none / no_date / invalid)
    time_ranges: dict[str, int] = field(default_factory=dict)


def qa_run_id(dataset: str, item_ids: list[str], config: dict[str, Any]) -> str:
    """Stable id of a run: the hash of its dataset, questions and whole configuration."""
    return "qa:" + text_sha256(canonical_json({"dataset": dataset, "items": item_ids, "config": config}))[:16]


def run_qa(
    store: EventStore,
    path: Path,
    feed: FeedConfig,
    *,
    reader: str,
    reader_llm: LLMClient | None,
    judge_llm: LLMClient | None,
    fact_llm: LLMClient | None = None,
    time_llm: LLMClient | None = None,
    limit: int | None = None,
    say: Say | None = None,
    progress_every_s: float = 5.0,
    flush_every_s: float = 2.0,
    prompts: PromptSet | None = None,
) -> QaRunOutcome:
    """Run (or resume) the QA run of this configuration; `reader_llm`/`judge_llm` None means retrieval only.
    `fact_llm` extracts key facts (`--key-expansion facts`), `time_llm` reads time ranges (`--time-aware llm`).

    Answers and verdicts are appended in batches at most `flush_every_s` apart (at once when a question takes
    longer, as with a real endpoint), and whatever is pending is appended when the run stops for any reason;
    only a killed process loses the questions of the last interval, which the rerun asks again."""
    retrieval_only = _check_qa_options(feed, reader, reader_llm, judge_llm, time_llm)
    emit = say or (lambda text: print(text, file=sys.stderr, flush=True))
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    dataset = prepare_dataset(store, "longmemeval", path, limit=limit)
    seconds["prepare"] = time.perf_counter() - t0
    item_ids = [item.item_id for item in dataset.items]
    if not item_ids:
        raise QaError(f"{path}: no LongMemEval question found")
    questions = load_questions(store, item_ids)
    histories = load_histories(store, [q.profile_id for q in questions])
    run_id, config, models, qa_prompts, hashes = plan_qa_run(
        dataset.name,
        item_ids,
        feed,
        reader,
        prompts,
        reader_model=reader_llm.model if reader_llm else None,
        judge_model=judge_llm.model if judge_llm else None,
        fact_model=fact_llm.model if fact_llm else None,
        time_model=time_llm.model if time_llm else None,
        encoder_id=store.encoder.encoder_id if store.encoder is not None else None,
    )
    notes = list(dataset.notes)
    if not retrieval_only:
        append_run_started(store, run_id, dataset.name, path, item_ids, config, models, hashes)
    done = {r.item_id: r for r in answer_rows(store, run_id, questions)} if not retrieval_only else {}
    extractor = llm_fact_extractor(fact_llm, qa_prompts.facts) if fact_llm is not None else None
    time_reader = (
        llm_time_range_reader(time_llm, qa_prompts.time_range)
        if time_llm is not None and feed.time_aware == "llm"
        else None
    )
    outcome = QaRunOutcome(run_id, config, summarise_run(run_id, feed.label(), []), retrieval_only=retrieval_only)
    embedder = QueryEmbedder(store.encoder) if store.encoder is not None and feed.feed == "rag" else None
    t0 = time.perf_counter()
    prepared = _prepare_questions(
        store, feed, questions, histories, done, extractor, time_reader, embedder, outcome, emit
    )
    seconds["index"] = time.perf_counter() - t0
    emit(f"qa {run_id} ({config['label']}): {len(questions)} questions, {len(questions) - len(prepared)} already done")
    writer = _BufferedWriter(store, flush_every_s)
    t0 = time.perf_counter()
    retrieval_rows = _ask_questions(
        store, writer, feed, reader, reader_llm, judge_llm, run_id, questions, prepared, done, qa_prompts, outcome,
        emit, progress_every_s,
    )
    seconds["questions"] = time.perf_counter() - t0
    if retrieval_only:
        rows = _retrieval_rows(questions, retrieval_rows, prepared)
        notes.append("retrieval only: no LLM configured, so no answer was read or judged")
    else:
        rows = answer_rows(store, run_id, questions)
    _close_outcome(outcome, str(config["label"]), rows, seconds, notes)
    emit(f"qa: done: {outcome.answered_now} answered, {outcome.judged_now} judged, {outcome.skipped_done} were done")
    return outcome


def _close_outcome(
    outcome: QaRunOutcome, label: str, rows: list[AnswerRow], seconds: dict[str, float], notes: list[str]
) -> None:
    """The run's summary, timings and notes (a note for time ranges whose replies stayed invalid) on `outcome`."""
    outcome.summary = summarise_run(outcome.qa_run_id, label, rows)
    outcome.seconds = {k: round(v, 3) for k, v in seconds.items()}
    invalid = outcome.time_ranges.get("invalid", 0)
    if invalid:
        notes.append(
            f"time range (llm): the replies for {invalid} of {sum(outcome.time_ranges.values())} question(s) stayed "
            "invalid after re-asking; they were recorded as no range (not narrowed)"
        )
    outcome.notes = notes


def _check_qa_options(
    feed: FeedConfig,
    reader: str,
    reader_llm: LLMClient | None,
    judge_llm: LLMClient | None,
    time_llm: LLMClient | None,
) -> bool:
    """Whether the run is retrieval only (no reader or no judge); QaError for options that do not go together."""
    if reader not in READERS:
        raise QaError(f"--reader must be one of {', '.join(READERS)}, got {reader!r}")
    retrieval_only = reader_llm is None or judge_llm is None
    if retrieval_only and feed.feed != "rag":
        raise QaError("eval qa without an LLM can only show the retrieval figures of --feed rag")
    if feed.time_aware == "llm" and time_llm is None:
        raise QaError("--time-aware llm reads each question's time range with an LLM: configure the `memory` role")
    return retrieval_only


def _prepare_questions(
    store: EventStore,
    feed: FeedConfig,
    questions: list[QaQuestion],
    histories: dict[str, list[HistorySession]],
    done: dict[str, AnswerRow],
    extractor: FactExtractor | None,
    time_reader: TimeRangeReader | None,
    embedder: QueryEmbedder | None,
    outcome: QaRunOutcome,
    emit: Say,
) -> dict[str, PreparedQuestion]:
    """Each question not finished yet, indexed for its feed (its time range read, counted in `outcome`)."""
    todo = [q for q in questions if not _finished(done.get(q.item_id))]
    vectors = _question_vectors(store, feed, todo)
    prepared = {}
    for n, q in enumerate(questions, start=1):
        if _finished(done.get(q.item_id)):
            continue
        prepared[q.item_id] = prepare_question(
            feed,
            q,
            histories.get(q.profile_id, []),
            encoder=store.encoder,
            extractor=extractor,
            query_embedder=embedder,
            time_reader=time_reader,
            query_vector=vectors.get(q.item_id),
        )
        reading = prepared[q.item_id].time_reading
        if reading is not None:
            outcome.time_ranges[reading.status] = outcome.time_ranges.get(reading.status, 0) + 1
        if n % 50 == 0:
            emit(f"qa: indexed {n}/{len(questions)} questions")
    return prepared


def _ask_questions(
    store: EventStore,
    writer: _BufferedWriter,
    feed: FeedConfig,
    reader: str,
    reader_llm: LLMClient | None,
    judge_llm: LLMClient | None,
    run_id: str,
    questions: list[QaQuestion],
    prepared: dict[str, PreparedQuestion],
    done: dict[str, AnswerRow],
    qa_prompts: QaPrompts,
    outcome: QaRunOutcome,
    emit: Say,
    progress_every_s: float,
) -> dict[str, Any]:
    """Answer and judge each prepared question (or, retrieval only, feed it and keep its retrieval figures,
    returned by item id); what `writer` holds is appended however the loop ends."""
    retrieval_only = outcome.retrieval_only
    retrieval_rows: dict[str, Any] = {}
    phases = outcome.phase_ms
    last = time.monotonic()
    try:
        for n, q in enumerate(questions, start=1):
            if q.item_id not in prepared:
                outcome.skipped_done += 1
                continue
            started = time.perf_counter()
            if retrieval_only:
                fed = feed_units(feed, prepared[q.item_id])
                retrieval_rows[q.item_id] = fed.details.get("retrieval")
            else:
                assert reader_llm is not None and judge_llm is not None
                llm_s = _answer_and_judge(
                    store,
                    writer,
                    outcome,
                    feed,
                    reader,
                    reader_llm,
                    judge_llm,
                    run_id,
                    q,
                    prepared[q.item_id],
                    done.get(q.item_id),
                    qa_prompts,
                )
                outcome.llm_seconds += llm_s
            outcome.per_question_ms.append((time.perf_counter() - started) * 1000)
            if progress_every_s >= 0 and time.monotonic() - last >= progress_every_s:
                last = time.monotonic()
                emit(
                    f"qa: {n}/{len(questions)} questions ({outcome.answered_now} answered, {outcome.judged_now} judged)"
                )
    finally:
        flushed = time.perf_counter()
        writer.flush()
        phases["append"] = phases.get("append", 0.0) + (time.perf_counter() - flushed) * 1000
    phases["append"] = phases.get("append", 0.0) + writer.seconds_in_periodic_flushes * 1000
    return retrieval_rows


def _retrieval_rows(
    questions: list[QaQuestion], retrieval_rows: dict[str, Any], prepared: dict[str, PreparedQuestion]
) -> list[AnswerRow]:
    """The summary rows of a retrieval-only pass: nothing answered or judged, the retrieval figures kept."""
    return [
        AnswerRow(
            item_id=q.item_id,
            question_type=q.question_type,
            abstention=q.abstention,
            answered=False,
            judged=False,
            retrieval=retrieval_rows.get(q.item_id),
            time_range=_status(prepared.get(q.item_id)),
        )
        for q in questions
    ]


def plan_qa_run(
    dataset: str,
    item_ids: list[str],
    feed: FeedConfig,
    reader: str,
    prompts: PromptSet | None,
    *,
    reader_model: str | None,
    judge_model: str | None,
    fact_model: str | None,
    time_model: str | None,
    encoder_id: str | None,
) -> tuple[str, dict[str, Any], dict[str, Any], QaPrompts, dict[str, str]]:
    """(run id, config, models, prompts, prompt hashes) of a QA run: the same command plans the same run."""
    config: dict[str, Any] = {**feed.model_dump(mode="json"), "reader": reader, "label": feed.label() + f" / {reader}"}
    models: dict[str, Any] = {
        "reader": reader_model,
        "judge": judge_model,
        "facts": fact_model if feed.key_expansion == "facts" else None,
        "encoder": encoder_id,
    }
    if feed.time_aware == "llm":
        assert time_model is not None
        models["time_range"] = time_model
    qa_prompts = QaPrompts.resolve(prompts, reader)
    hashes = qa_prompts.hashes(feed.key_expansion, feed.time_aware)
    identity = dict(config)
    if feed.time_aware == "none":
        identity["time_aware"] = False  # runs without time-aware expansion keep the id they had when it was a flag
    run_id = qa_run_id(dataset, item_ids, {**identity, "models": models, "prompts": hashes})
    # after the id: same command, same run as before
    config["prompts"] = qa_prompts.records(feed.key_expansion, feed.time_aware)
    return run_id, config, models, qa_prompts, hashes


def _finished(row: AnswerRow | None) -> bool:
    return row is not None and row.answered and row.judged and bool(row.valid)


def _question_vectors(store: EventStore, feed: FeedConfig, questions: list[QaQuestion]) -> dict[str, np.ndarray]:
    """item id -> the question's embedding, for rag with a semantic channel: every question of the run in one
    encoder call through the persistent embedding cache (a rerun embeds nothing), instead of one call per
    question inside the question loop."""
    if feed.feed != "rag" or store.encoder is None or "semantic" not in get_recipe(feed.recipe).memory_channels:
        return {}
    if not questions:
        return {}
    vectors = np.asarray(store.encoder.encode([q.question for q in questions]), dtype=np.float32)
    return {q.item_id: vectors[n] for n, q in enumerate(questions)}


def _status(prepared: PreparedQuestion | None) -> str | None:
    reading = prepared.time_reading if prepared is not None else None
    return reading.status if reading is not None else None


class _BufferedWriter:
    """Collects events and appends them in one transaction when `every_s` has passed since the last append.

    A due batch is appended on a thread of its own while the loop goes on (the next question's search and LLM
    calls overlap Neo4j's write); one batch is in flight at a time, so the batches and their order are those of
    appending in the loop. `flush` waits for it and appends the rest. A batch whose append failed goes back in
    front of `pending` and its error is raised by the next `add` or `flush` (which still tries to append what is
    pending, as the caller's final flush did before). `seconds_in_periodic_flushes`: the time the loop waited
    for an earlier batch before handing over the next."""

    def __init__(self, store: EventStore, every_s: float) -> None:
        self.store = store
        self.every_s = every_s
        self.pending: list[NewEvent] = []
        self.last = time.monotonic()
        self.seconds_in_periodic_flushes = 0.0
        self._inflight: tuple[threading.Thread, list[NewEvent], list[BaseException]] | None = None

    def add(self, events: list[NewEvent]) -> None:
        self.pending.extend(events)
        if time.monotonic() - self.last >= self.every_s:
            started = time.perf_counter()
            self._wait()
            batch, self.pending = self.pending, []
            failed: list[BaseException] = []
            thread = threading.Thread(target=self._append, args=(batch, failed), name="qa-append", daemon=True)
            self._inflight = (thread, batch, failed)
            thread.start()
            self.last = time.monotonic()
            self.seconds_in_periodic_flushes += time.perf_counter() - started

    def _append(self, batch: list[NewEvent], failed: list[BaseException]) -> None:
        try:
            self.store.append(batch)
        except BaseException as exc:  # raised in the loop's thread by _wait
            failed.append(exc)

    def _wait(self) -> None:
        """Wait for the batch in flight; if its append failed, put it back in front and raise the error."""
        if self._inflight is None:
            return
        thread, batch, failed = self._inflight
        thread.join()
        self._inflight = None
        if failed:
            self.pending = batch + self.pending
            raise failed[0]

    def flush(self) -> None:
        error: BaseException | None = None
        try:
            self._wait()
        except BaseException as exc:
            error = exc
        if self.pending:
            self.store.append(self.pending)
            self.pending = []
        self.last = time.monotonic()
        if error is not None:
            raise error


def _answer_and_judge(
    store: EventStore,
    writer: _BufferedWriter,
    outcome: QaRunOutcome,
    feed: FeedConfig,
    reader: str,
    reader_llm: LLMClient,
    judge_llm: LLMClient,
    run_id: str,
    q: QaQuestion,
    prepared: PreparedQuestion,
    row: AnswerRow | None,
    qa_prompts: QaPrompts,
) -> float:
    """Answer (unless answered before) and judge one question, queueing its events; seconds inside LLM calls."""
    phases = outcome.phase_ms
    answer_id = f"{run_id}:{q.item_id}"
    llm_s = 0.0
    answer_event: QaAnswered | None = None
    if row is None or not row.answered:
        started = time.perf_counter()
        fed = feed_units(feed, prepared)
        phases["feed"] = phases.get("feed", 0.0) + (time.perf_counter() - started) * 1000
        result = read_answer(reader_llm, q, fed.units, reader, qa_prompts.reader)
        phases["reader"] = phases.get("reader", 0.0) + result.seconds * 1000
        llm_s += result.seconds
        answer_text = result.answer
        answer_event = QaAnswered(
            answer_id=answer_id,
            qa_run_id=run_id,
            item_id=q.item_id,
            answer=answer_text,
            notes=result.notes,
            fed_unit_ids=[u.unit_id for u in fed.units],
            fed_session_ids=list(dict.fromkeys(u.session_id for u in fed.units)),
            model=result.model,
            prompt_sha256=result.prompt.sha256,
            tokens_in=result.tokens_in,
            tokens_out=result.tokens_out,
            reader_ms=round(result.seconds * 1000, 3),
            details={**fed.details, "n_units": len(fed.units)},
            exchange=result.exchange,
        )
    else:
        answer_text = row.answer or ""
    started = time.perf_counter()
    try:
        verdict = judge_qa_answer(
            judge_llm,
            answer_id=answer_id,
            qa_run_id=run_id,
            item_id=q.item_id,
            question_id=q.question_id,
            question_type=q.question_type,
            question=q.question,
            reference=q.reference_answer,
            answer=answer_text,
            templates=qa_prompts.judges,
        )
    except BaseException:
        # Keep the answer (the rerun only judges it); the caller appends what is pending and stops.
        if answer_event is not None:
            writer.pending.append(NewEvent(answer_event, ACTOR))
        raise
    judge_s = time.perf_counter() - started
    phases["judge"] = phases.get("judge", 0.0) + judge_s * 1000
    llm_s += judge_s
    started = time.perf_counter()
    writer.add([NewEvent(e, ACTOR) for e in (answer_event, verdict) if e is not None])
    phases["queue"] = phases.get("queue", 0.0) + (time.perf_counter() - started) * 1000
    outcome.answered_now += answer_event is not None
    outcome.judged_now += 1
    return llm_s


def append_run_started(
    store: EventStore,
    run_id: str,
    dataset: str,
    path: Path,
    item_ids: list[str],
    config: dict[str, Any],
    models: dict[str, Any],
    hashes: dict[str, Any],
) -> None:
    """The QaRunStarted event of a QA run (both QA lines: the reading line and the memory-systems line)."""
    started = QaRunStarted(
        qa_run_id=run_id,
        dataset=dataset,
        source=path.name,
        item_ids=item_ids,
        config=config,
        models=models,
        prompt_hashes=hashes,
    )
    store.append([NewEvent(started, ACTOR)])
