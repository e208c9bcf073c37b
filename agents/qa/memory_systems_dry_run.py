"""`eval qa --system NAME --dry-run`: what the memory-systems QA run of this configuration would still send and
what it would cost, sending nothing and writing nothing (agents/runs/dry_run.py's estimate, for this line).
The dataset file is read, not ingested: its questions must be in the graph already (an earlier `eval qa` or
`ingest`). The run planned is the real one (same run id: agents.qa.memory_systems.plan_memory_qa_run), so
questions answered and judge runs made before are not counted again.

* memory: the pairs of the questions' profiles not built yet by the system, times the calls and tokens per pair
  measured by earlier builds of the system in this graph (else at least one call per pair, tokens unknown);
  systems built without an LLM (raw turns) make none.
* answerer: one call per question still to answer. Its prompt is the system's answer prompt with the fed
  memories, which only the search decides (the dry run does not search): its input is given from the k shortest
  of the profile's memories to the k longest, each rendered as the run renders it; a profile whose memory is
  not built yet is counted with no memories (a lower bound, said so).
* judge: one call per missing judge run of each question, the binary judge's prompt (the adversarial one for
  category 5 / abstention questions) with the recorded answer when the question is answered already, else an
  empty answer (a lower bound); re-asks after an invalid reply in the most calls only."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from agents.llm.context_size import request_text
from agents.llm.prices import role_price
from agents.llm.roles import LLMRoles
from agents.memory.registry import get_memory_system
from agents.prompts.registry import PromptSet
from agents.prompts.template import render_messages
from agents.qa.errors import QaError
from agents.qa.history import load_questions
from agents.qa.memory_systems import (
    QA_DATASETS,
    memory_sessions,
    plan_memory_qa_run,
    render_memories,
    turn_sessions,
)
from agents.qa.memory_systems_summary import is_adversarial, memory_answer_rows
from agents.runs.dry_run import DryRun, RoleEstimate, _structured_text, estimate_memory_build
from graph.cypher_files import load_cypher
from graph.events import ItemCreated
from graph.store import EventStore
from query.model_tokens import probe_tokenizer


def _dataset_items(path: Path, dataset: str, limit: int | None) -> tuple[str, list[str]]:
    """(dataset name, item ids) of the file as the run would take them, parsed without writing anything."""
    from agents.retrieval_eval.datasets import _subset

    if not path.exists():
        raise QaError(f"{path}: no such {dataset} file")
    if dataset == "longmemeval":
        from ingest.adapters.longmemeval import load_longmemeval

        result = load_longmemeval(path, None)
    else:
        from ingest.pipeline import load_input

        result = load_input(path, dataset)
    item_ids = [e.event.item_id for e in result.events if isinstance(e.event, ItemCreated)]
    return result.dataset, _subset(item_ids, limit)


def _profile_memories(store: EventStore, system: str, profile_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with store.driver.session(database=store.database) as session:
        for r in session.run(load_cypher("qa/system_memory_texts"), system=system, profile_ids=profile_ids):
            out[r["profile_id"]].append({"text": r["text"] or "", "turn_ids": list(r["turn_ids"] or [])})
    return out


def estimate_memory_qa(
    store: EventStore,
    path: Path,
    *,
    dataset: str,
    system: str,
    roles: LLMRoles,
    prompts: PromptSet | None = None,
    k: int | None = None,
    judge_runs: int = 3,
    limit: int | None = None,
) -> DryRun:
    """The dry run of `eval qa --system` (reads the file and the graph; sends and writes nothing)."""
    if dataset not in QA_DATASETS:
        raise QaError(f"--dataset {dataset!r}: eval qa --system reads {' or '.join(QA_DATASETS)}")
    cls = get_memory_system(system)
    if store.encoder is None:
        raise QaError("eval qa --system searches memories with the project's encoder: none is configured")
    name, item_ids = _dataset_items(path, dataset, limit)
    if not item_ids:
        raise QaError(f"{path}: no {dataset} question found")
    questions = load_questions(store, item_ids)
    if len(questions) < len(item_ids):
        raise QaError(
            f"--dry-run reads the questions from the graph and {len(item_ids) - len(questions)} of {len(item_ids)} "
            f"of {path.name} are not there: ingest it first (`./colabench ingest {path}`, or one `eval qa` run)"
        )
    settings = roles.settings
    memory_model = settings["memory"].model if roles.configured("memory") else None
    plan = plan_memory_qa_run(
        name, item_ids, cls.name, k, prompts,
        answer_model=str(settings["answerer"].model or ""), judge_model=str(settings["judge"].model or ""),
        memory_model=memory_model, encoder_id=store.encoder.encoder_id,
    )  # fmt: skip
    profile_ids = sorted({q.profile_id for q in questions})
    done = {r.item_id: r for r in memory_answer_rows(store, plan.run_id, questions)}
    answer_counter = probe_tokenizer(None, settings["answerer"].model).counter
    judge_counter = probe_tokenizer(None, settings["judge"].model).counter
    answerer = RoleEstimate("answerer", settings["answerer"].model, roles.configured("answerer"))
    judge = RoleEstimate("judge", settings["judge"].model, roles.configured("judge"))
    memory = RoleEstimate("memory", settings["memory"].model, roles.configured("memory"))

    # 1. the memory build: the questions' profiles, the pairs not taken in yet
    if cls.needs_llm:
        estimate_memory_build(store, cls.name, profile_ids, memory)

    # 2. answers and verdicts still to make
    memories = _profile_memories(store, cls.name, profile_ids)
    turns = turn_sessions(store, profile_ids)

    def dated(m: dict[str, Any]) -> dict[str, Any]:
        when = [date for _, date, _ in memory_sessions(m["turn_ids"], turns) if date]
        return {"text": m["text"], "date": when[0] if when else None}

    def answer_tokens(fed: list[dict[str, Any]], question: str) -> int:
        messages = render_messages(plan.prompts.answer, memories=render_memories(fed), question=question)
        return answer_counter.count([request_text({"messages": list(messages)})])[0]

    from agents.judging.memory_systems_judge import BinaryQaVerdict

    schema = BinaryQaVerdict.model_json_schema()
    judge_retries = settings["judge"].invalid_output_retries
    to_answer = to_judge = 0
    unbuilt: set[str] = set()
    for q in questions:
        row = done.get(q.item_id)
        missing = [r for r in range(1, judge_runs + 1) if row is None or r not in row.verdicts]
        if row is not None and not missing:
            continue
        if row is None:
            to_answer += 1
            held = sorted((dated(m) for m in memories.get(q.profile_id, [])), key=lambda m: len(m["text"]))
            if not held:
                unbuilt.add(q.profile_id)
            low = answer_tokens(held[: plan.k], q.question)
            high = answer_tokens(held[-plan.k :], q.question) if held else low
            answerer.add(calls=1, most_calls=1, tokens=low, tokens_at_most=high,
                         out_at_most=settings["answerer"].max_tokens)  # fmt: skip
        to_judge += 1
        template = plan.prompts.adversarial if is_adversarial(q) else plan.prompts.judge
        answer = (row.answer if row is not None else "") or "(no answer)"
        messages = list(render_messages(template, question=q.question, gold=q.reference_answer or "(none)",
                                        answer=answer))  # fmt: skip
        tokens = judge_counter.count([request_text(_structured_text(settings["judge"], messages, schema))])[0]
        calls = len(missing)
        most = calls * (1 + judge_retries)
        judge.add(calls=calls, most_calls=most, tokens=tokens * calls, tokens_at_most=tokens * most,
                  out_at_most=settings["judge"].max_tokens * most)  # fmt: skip
    answerer.basis.append(
        f"one call per question to answer; input from the k={plan.k} shortest of the profile's {cls.name} memories "
        "to the k longest, rendered as the run renders them (the search, which picks them, is not run)"
    )
    answerer.basis.append(f"output: at most max_tokens={settings['answerer'].max_tokens} per call (a bound)")
    judge.basis.append(
        f"{judge_runs} judge run(s) per question, the missing ones only; each prompt counted with the recorded "
        f"answer, or an empty one for a question not answered yet (a lower bound); the most calls add "
        f"{judge_retries} re-ask(s) after an invalid reply; output at most max_tokens={settings['judge'].max_tokens}"
    )
    notes = [f"input tokens counted with {answer_counter.name} (the endpoint's /tokenize is not asked)"]
    if unbuilt:
        notes.append(
            f"{len(unbuilt)} profile(s) hold no {cls.name} memory yet (built first by the run): their answer prompts "
            "are counted with no memories, so the real prompts are longer"
        )
    estimates = [e for e in (memory, answerer, judge) if e.calls_min or e.calls_max != 0]
    for e in estimates:
        if not e.configured:
            notes.append(f"role {e.role!r} has no LLM endpoint configured: a real run needs one (the dry run does not)")
    return DryRun(
        batch_id=plan.run_id,
        dataset=name,
        items=len(questions),
        runs=[plan.run_id],
        attempts=len(questions),
        to_answer=to_answer,
        to_judge=to_judge,
        roles=estimates,
        tokenizer=answer_counter.name,
        prices={e.role: role_price(settings[e.role], roles.prices) for e in estimates},
        notes=notes,
    )
