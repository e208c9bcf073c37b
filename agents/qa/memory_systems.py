"""`eval qa --system NAME`: the memory-systems QA line (the protocol memory-system builders compare with on
LoCoMo, and LongMemEval as the second line), for any system of the memory registry.

1. Ingest the dataset if needed; build the system's memory of every conversation (LoCoMo) or question
   haystack (LongMemEval) with the system's own resumable builder (agents.memory.prepare.build_profiles).
2. Per question: search the system with its own search (its `search_recipe` through the Retriever, the SDK's
   search for systems that rank with it) at k (default: the system's `qa_k`, recorded with its source), time
   the search, and record the memories fed (QaAnswered.fed_memory_ids -> Memory nodes -> source turns).
3. Answer with the system's answer prompt (agents/prompts/memory_systems_qa.py; `--prompt` replaces it).
4. Judge N times (`judge_runs`, each run its own cache namespace: LLMRoles.repeat_client) with the binary
   judge; adversarial questions with the abstention variant.

Same answering and judging models for every system (the command's roles), recorded in the run. The run id
hashes dataset, questions, system, k, models and prompt hashes, not N: a rerun skips answered questions and
judge runs already made, and a larger N adds only the missing runs."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.judging.memory_systems_judge import RULE_ADVERSARIAL, RULE_ANSWER, judge_binary
from agents.llm.client import LLMClient
from agents.memory.prepare import build_profiles
from agents.memory.rankers import sdk_rankers
from agents.memory.registry import BuildReport, get_memory_system
from agents.prompts.memory_systems_qa import (
    JUDGE_MEMORY_SYSTEMS_ADVERSARIAL,
    JUDGE_MEMORY_SYSTEMS_QA,
    answer_prompt_name,
)
from agents.prompts.registry import PromptSet
from agents.prompts.template import PromptTemplate, render_messages
from agents.qa.errors import QaError
from agents.qa.history import QaQuestion, load_questions
from agents.qa.memory_systems_summary import (
    MemoryQaSummary,
    is_adversarial,
    memory_answer_rows,
    question_category,
    summarise_memory_run,
)
from agents.qa.runner import _BufferedWriter, append_run_started, qa_run_id
from agents.retrieval_eval.datasets import prepare_dataset
from graph.cypher_files import load_cypher
from graph.events import NewEvent, QaAnswered, QaAnswerJudged
from graph.store import EventStore
from query.retriever import Retriever
from query.tokens import TOKENIZER_NAME, WORDPIECE

ACTOR = "eval:qa"
LINE = "memory_systems"
QA_DATASETS = ("locomo", "longmemeval")
MAX_K = 200
MAX_JUDGE_RUNS = 20
Say = Callable[[str], None]


@dataclass(frozen=True)
class MemoryQaPrompts:
    answer: PromptTemplate
    judge: PromptTemplate
    adversarial: PromptTemplate

    @classmethod
    def resolve(cls, prompts: PromptSet | None, system: str) -> MemoryQaPrompts:
        chosen = prompts or PromptSet()
        return cls(
            answer=chosen[answer_prompt_name(system)],
            judge=chosen[JUDGE_MEMORY_SYSTEMS_QA.name],
            adversarial=chosen[JUDGE_MEMORY_SYSTEMS_ADVERSARIAL.name],
        )

    def all(self) -> list[PromptTemplate]:
        return [self.answer, self.judge, self.adversarial]


@dataclass
class MemoryQaOutcome:
    qa_run_id: str
    config: dict[str, Any]
    summary: MemoryQaSummary
    answered_now: int = 0
    judged_now: int = 0
    skipped_done: int = 0
    build: dict[str, Any] = field(default_factory=dict)  # this pass's build (pairs built now, skipped)
    per_question_ms: list[float] = field(default_factory=list)  # harness + LLM time of each question this pass
    llm_ms: list[float] = field(default_factory=list)  # of which inside LLM calls
    loop_seconds: float = 0.0  # the question loop of this pass, every append included
    # summed over the questions of this pass, in ms: search (the system's own), prompt (the fed memories dated by
    # their sessions, rendered, their tokens counted), answer and judge (inside LLM calls), append (log writes)
    phase_ms: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def resolve_k(system: str, k: int | None) -> tuple[int, str]:
    """(k, where it comes from): `--k` when given, else the system's own evaluation setting."""
    cls = get_memory_system(system)
    if k is None:
        return int(cls.qa_k), str(cls.qa_k_source)
    if isinstance(k, bool) or not 1 <= k <= MAX_K:
        raise QaError(f"--k must lie in 1..{MAX_K}, got {k}")
    return k, "--k on the command line"


@dataclass(frozen=True)
class MemoryQaPlan:
    """The identity of a memory-systems QA run: its id, config, models and prompts (the run and its dry run
    plan alike, so the dry run names the run it estimates)."""

    run_id: str
    config: dict[str, Any]
    models: dict[str, Any]
    prompts: MemoryQaPrompts
    hashes: dict[str, str]
    k: int


def plan_memory_qa_run(
    dataset_name: str,
    item_ids: list[str],
    system: str,
    k: int | None,
    prompts: PromptSet | None,
    *,
    answer_model: str,
    judge_model: str,
    memory_model: str | None,
    encoder_id: str,
) -> MemoryQaPlan:
    cls = get_memory_system(system)
    k_value, k_source = resolve_k(cls.name, k)
    qa_prompts = MemoryQaPrompts.resolve(prompts, cls.name)
    models = {
        "answerer": answer_model,
        "judge": judge_model,
        "memory": memory_model if cls.needs_llm else None,
        "encoder": encoder_id,
    }
    hashes = {t.name: t.sha256 for t in qa_prompts.all()}
    identity = {"line": LINE, "system": cls.name, "builder": cls.builder, "k": k_value}
    run_id = qa_run_id(dataset_name, item_ids, {**identity, "models": models, "prompts": hashes})
    config: dict[str, Any] = {
        **identity,
        "label": f"{cls.name}@{k_value}",
        "system_label": cls.label,
        "k_source": k_source,
        "search_recipe": cls.search_recipe,
        "search": "the system's own search (SDK)" if cls.ranks_with_sdk else f"recipe {cls.search_recipe}",
        "deviations": cls.deviations(),
        "memory_tokens": TOKENIZER_NAME,
        "prompts": {t.name: t.record() for t in qa_prompts.all()},
    }
    return MemoryQaPlan(run_id, config, models, qa_prompts, hashes, k_value)


def run_memory_qa(
    store: EventStore,
    path: Path,
    *,
    dataset: str,
    system: str,
    answer_llm: LLMClient,
    judge_llms: Sequence[LLMClient],
    memory_llm: LLMClient | None = None,
    k: int | None = None,
    judge_runs: int = 3,
    limit: int | None = None,
    prompts: PromptSet | None = None,
    say: Say | None = None,
    flush_every_s: float = 2.0,
) -> MemoryQaOutcome:
    """Run (or resume) the memory-systems QA run of this configuration; `judge_llms[r]` asks judge run r+1."""
    _check_memory_qa_options(dataset, judge_runs, judge_llms)
    cls = get_memory_system(system)  # UnknownMemorySystemError lists the registered names
    k_value, _ = resolve_k(cls.name, k)
    if store.encoder is None:
        raise QaError("eval qa --system searches memories with the project's encoder: none is configured")
    emit = say or (lambda text: print(text, file=sys.stderr, flush=True))
    prepared = prepare_dataset(store, dataset, path, limit=limit)
    item_ids = [item.item_id for item in prepared.items]
    if not item_ids:
        raise QaError(f"{path}: no {dataset} question found")
    questions = load_questions(store, item_ids)
    profile_ids = sorted({q.profile_id for q in questions})
    plan = plan_memory_qa_run(
        prepared.name,
        item_ids,
        cls.name,
        k,
        prompts,
        answer_model=answer_llm.model,
        judge_model=judge_llms[0].model,
        memory_model=memory_llm.model if memory_llm is not None else None,
        encoder_id=store.encoder.encoder_id,
    )
    run_id, config = plan.run_id, plan.config
    retriever = Retriever(store.driver, store.encoder, store.database)
    outcome = MemoryQaOutcome(run_id, config, MemoryQaSummary.empty(run_id, config, judge_runs))
    outcome.notes = list(prepared.notes)
    # 1. memories: the system's own builder, resumable (pairs taken in before are skipped)
    outcome.build = _build_memory(store, retriever, cls.name, profile_ids, memory_llm)
    emit(
        f"qa {run_id} ({config['label']}): memory of {len(profile_ids)} profile(s) built "
        f"({outcome.build['pairs_built_now']} pair(s) now, {outcome.build['pairs_skipped']} before)"
    )
    append_run_started(store, run_id, prepared.name, path, item_ids, config, plan.models, plan.hashes)
    _ask_questions(
        store,
        retriever,
        outcome,
        cls.name,
        k_value,
        questions,
        profile_ids,
        judge_runs,
        answer_llm,
        judge_llms,
        plan.prompts,
        flush_every_s,
    )
    outcome.summary = summarise_memory_run(store, run_id, config, questions, judge_runs, profile_ids)
    emit(f"qa: done: {outcome.answered_now} answered, {outcome.judged_now} verdicts, {outcome.skipped_done} were done")
    return outcome


def _check_memory_qa_options(dataset: str, judge_runs: int, judge_llms: Sequence[LLMClient]) -> None:
    """QaError for a dataset the line does not read, or a number of judge runs out of range or without clients."""
    if dataset not in QA_DATASETS:
        raise QaError(f"--dataset {dataset!r}: eval qa --system reads {' or '.join(QA_DATASETS)}")
    if not 1 <= judge_runs <= MAX_JUDGE_RUNS:
        raise QaError(f"--judge-runs must lie in 1..{MAX_JUDGE_RUNS}, got {judge_runs}")
    if len(judge_llms) < judge_runs:
        raise QaError(f"{judge_runs} judge runs need {judge_runs} judge clients, got {len(judge_llms)}")


def _build_memory(
    store: EventStore, retriever: Retriever, system: str, profile_ids: list[str], memory_llm: LLMClient | None
) -> dict[str, Any]:
    """Build the system's memory of these profiles with its own resumable builder; what this pass built."""
    started = time.perf_counter()
    reports: list[BuildReport] = build_profiles(system, store, retriever, profile_ids, llm=memory_llm)
    return {
        "profiles": len(profile_ids),
        "pairs_built_now": sum(r.pairs_built for r in reports),
        "pairs_skipped": sum(r.pairs_skipped for r in reports),
        "memories_added_now": sum(r.memories_added for r in reports),
        "llm_calls_now": sum(r.llm_calls for r in reports),
        "seconds": round(time.perf_counter() - started, 3),
    }


def _ask_questions(
    store: EventStore,
    retriever: Retriever,
    outcome: MemoryQaOutcome,
    system: str,
    k: int,
    questions: list[QaQuestion],
    profile_ids: list[str],
    judge_runs: int,
    answer_llm: LLMClient,
    judge_llms: Sequence[LLMClient],
    prompts: MemoryQaPrompts,
    flush_every_s: float,
) -> None:
    """Answer and judge every question with a judge run missing (a question done before is skipped); what the
    writer holds is appended however the loop ends, and the loop's times go to `outcome`."""
    run_id = outcome.qa_run_id
    done = {r.item_id: r for r in memory_answer_rows(store, run_id, questions)}
    turns = turn_sessions(store, profile_ids)
    writer = _BufferedWriter(store, flush_every_s)
    loop_started = time.perf_counter()
    try:
        with sdk_rankers(store, [system]):
            for q in questions:
                row = done.get(q.item_id)
                missing = [r for r in range(1, judge_runs + 1) if row is None or r not in row.verdicts]
                if row is not None and not missing:
                    outcome.skipped_done += 1
                    continue
                t0 = time.perf_counter()
                llm_s = _answer_and_judge(
                    store,
                    retriever,
                    writer,
                    outcome,
                    system,
                    k,
                    run_id,
                    q,
                    turns,
                    row,
                    missing,
                    answer_llm,
                    judge_llms,
                    prompts,
                )
                outcome.per_question_ms.append((time.perf_counter() - t0) * 1000)
                outcome.llm_ms.append(llm_s * 1000)
    finally:
        flushed = time.perf_counter()
        writer.flush()
        _add(outcome, "append", (time.perf_counter() - flushed) * 1000 + writer.seconds_in_periodic_flushes * 1000)
        outcome.loop_seconds = time.perf_counter() - loop_started


def _add(outcome: MemoryQaOutcome, phase: str, ms: float) -> None:
    outcome.phase_ms[phase] = outcome.phase_ms.get(phase, 0.0) + ms


def render_memories(memories: Sequence[dict[str, Any]]) -> str:
    """One line per fed memory, best first, with its conversation's date when its source turns have one."""
    lines = []
    for m in memories:
        date = m.get("date")
        text = " ".join(str(m["text"]).split())
        lines.append(f"- [{date}] {text}" if date else f"- {text}")
    return "\n".join(lines) if lines else "(no memories)"


TurnSessions = dict[str, tuple[str, str | None, int]]  # turn id -> (session id, its date, its ordinal)


def turn_sessions(store: EventStore, profile_ids: Sequence[str]) -> TurnSessions:
    with store.driver.session(database=store.database) as session:
        rows = session.run(load_cypher("qa/profile_turn_sessions"), profile_ids=list(profile_ids))
        return {r["turn_id"]: (r["session_id"], r["started_at"], int(r["ordinal"] or 0)) for r in rows}


def memory_sessions(source_turn_ids: Sequence[str], turns: TurnSessions) -> list[tuple[str, str | None, int]]:
    """The sessions a memory's source turns belong to, earliest first."""
    found = {turns[t] for t in source_turn_ids if t in turns}
    return sorted(found, key=lambda s: s[2])


def _answer_and_judge(
    store: EventStore,
    retriever: Retriever,
    writer: _BufferedWriter,
    outcome: MemoryQaOutcome,
    system: str,
    k: int,
    run_id: str,
    q: QaQuestion,
    turns: TurnSessions,
    row: Any,
    judge_runs: list[int],
    answer_llm: LLMClient,
    judge_llms: Sequence[LLMClient],
    prompts: MemoryQaPrompts,
) -> float:
    """Answer (unless answered before) and judge the missing runs of one question; seconds inside LLM calls."""
    answer_id = f"{run_id}:{q.item_id}"
    llm_s = 0.0
    answer_event: QaAnswered | None = None
    if row is None:
        answer_event, answer_text, answer_s = _answer_question(
            retriever, outcome, system, k, answer_id, run_id, q, turns, answer_llm, prompts
        )
        llm_s += answer_s
    else:
        answer_text = row.answer or ""
    adversarial = is_adversarial(q)
    verdicts: list[QaAnswerJudged] = []
    try:
        llm_s += _judge_answer(
            outcome, judge_runs, judge_llms, prompts, adversarial, answer_id, run_id, q, answer_text, verdicts
        )
    finally:
        # The answer and the verdicts made so far are kept even when a judge call fails (the rerun goes on).
        _queue_events(writer, outcome, [e for e in (answer_event, *verdicts) if e is not None])
    outcome.answered_now += answer_event is not None
    outcome.judged_now += len(verdicts)
    return llm_s


def _answer_question(
    retriever: Retriever,
    outcome: MemoryQaOutcome,
    system: str,
    k: int,
    answer_id: str,
    run_id: str,
    q: QaQuestion,
    turns: TurnSessions,
    answer_llm: LLMClient,
    prompts: MemoryQaPrompts,
) -> tuple[QaAnswered, str, float]:
    """Search the system's memories for the question, feed the best k (dated by their sessions) to the answerer;
    the answer event, its text and the seconds inside the LLM call. Search, prompt and answer times go to
    `outcome`."""
    started = time.perf_counter()
    found = retriever.search_memories(get_memory_system(system).search_recipe, q.question, profile_id=q.profile_id, k=k)
    search_ms = (time.perf_counter() - started) * 1000
    _add(outcome, "search", search_ms)
    hits = list(found.memories)[:k]
    started = time.perf_counter()
    sessions = {h.memory_id: memory_sessions(h.source_turn_ids, turns) for h in hits}
    fed = _fed_memories(hits, sessions)
    memories_text = render_memories(fed)
    memory_tokens = sum(WORDPIECE.count([str(m["text"]) for m in fed])) if fed else 0
    messages = render_messages(prompts.answer, memories=memories_text, question=q.question)
    _add(outcome, "prompt", (time.perf_counter() - started) * 1000)
    started = time.perf_counter()
    chat = answer_llm.chat(messages)
    answer_s = time.perf_counter() - started
    _add(outcome, "answer", answer_s * 1000)
    answer_text = (chat.content or "").strip()
    session_ids = list(dict.fromkeys(sid for h in hits for sid, _, _ in sessions[h.memory_id]))
    answer_event = QaAnswered(
        answer_id=answer_id,
        qa_run_id=run_id,
        item_id=q.item_id,
        answer=answer_text,
        fed_unit_ids=[h.memory_id for h in hits],
        fed_session_ids=session_ids,
        fed_memory_ids=[h.memory_id for h in hits],
        model=answer_llm.model,
        prompt_sha256=prompts.answer.sha256,
        tokens_in=chat.tokens_in,
        tokens_out=chat.tokens_out,
        reader_ms=round(answer_s * 1000, 3),
        details={
            "line": LINE,
            "system": system,
            "k": k,
            "category": question_category(q),
            "n_memories": len(hits),
            "search_ms": round(search_ms, 3),
            "memory_tokens": memory_tokens,
            "search_notes": list(found.notes),
        },
        exchange=chat.exchange,
    )
    return answer_event, answer_text, answer_s


def _fed_memories(hits: Sequence[Any], sessions: dict[str, list[tuple[str, str | None, int]]]) -> list[dict[str, Any]]:
    """The memories fed to the answerer, best first, each with the date of its earliest dated session."""
    fed: list[dict[str, Any]] = []
    for h in hits:
        dated = [date for _, date, _ in sessions[h.memory_id] if date]
        fed.append({"memory_id": h.memory_id, "text": h.text, "date": dated[0] if dated else None})
    return fed


def _judge_answer(
    outcome: MemoryQaOutcome,
    judge_runs: list[int],
    judge_llms: Sequence[LLMClient],
    prompts: MemoryQaPrompts,
    adversarial: bool,
    answer_id: str,
    run_id: str,
    q: QaQuestion,
    answer_text: str,
    verdicts: list[QaAnswerJudged],
) -> float:
    """Judge the answer once per missing judge run (adversarial questions with the abstention variant),
    appending each verdict to `verdicts` as it comes; seconds inside the LLM calls."""
    template = prompts.adversarial if adversarial else prompts.judge
    llm_s = 0.0
    for judge_run in judge_runs:
        started = time.perf_counter()
        verdicts.append(
            judge_binary(
                judge_llms[judge_run - 1],
                template,
                rule=RULE_ADVERSARIAL if adversarial else RULE_ANSWER,
                judge_run=judge_run,
                answer_id=answer_id,
                qa_run_id=run_id,
                item_id=q.item_id,
                question=q.question,
                gold=q.reference_answer,
                answer=answer_text,
            )
        )
        llm_s += time.perf_counter() - started
        _add(outcome, "judge", (time.perf_counter() - started) * 1000)
    return llm_s


def _queue_events(writer: _BufferedWriter, outcome: MemoryQaOutcome, events: list[QaAnswered | QaAnswerJudged]) -> None:
    """Hand the events to the buffered writer, timing the handing over as "queue" (a periodic flush it sets off
    is counted under "append")."""
    started, periodic = time.perf_counter(), writer.seconds_in_periodic_flushes
    writer.add([NewEvent(e, ACTOR) for e in events])
    flushing = writer.seconds_in_periodic_flushes - periodic  # counted under "append"
    _add(outcome, "queue", (time.perf_counter() - started - flushing) * 1000)
