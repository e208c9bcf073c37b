"""`eval qa --dry-run`: the questions a QA run would still answer and judge, the calls per role, the tokens of
the prompts it would build and the cost, sending nothing and writing nothing (the LongMemEval file is read, not
ingested: its questions must be in the graph already, from an earlier `eval qa` or `ingest`).

* reader (the answerer role): oracle and full feeds give the reader a known history, so its prompt is built and
  counted whole; the rag feed ranks the units first (with the encoder), which the dry run does not do: its input
  is given from the k shortest units (the fewest tokens) to the k longest (counted as a lower bound of the most).
* judge: the prompt of the question's grading rule with an empty answer (a lower bound), one call per question
  still to judge; re-asks after an invalid reply in the most calls only.
* facts (`--key-expansion facts`) and time ranges (`--time-aware llm`), the memory role (else the answerer's):
  calls counted (at most one per unit, one per question), their tokens not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.judging.lme_qa_judge import grading_rule
from agents.llm.context_size import request_text
from agents.llm.prices import role_price
from agents.llm.roles import LLMRoles
from agents.prompts.registry import PromptSet
from agents.prompts.template import render_messages
from agents.qa.errors import QaError
from agents.qa.feeds import FeedConfig, feed_units, prepare_question
from agents.qa.history import load_histories, load_questions
from agents.qa.reader import history_json
from agents.qa.runner import plan_qa_run
from agents.qa.summary import answer_rows
from agents.qa.units import build_units
from agents.runs.dry_run import DryRun, RoleEstimate
from graph.events import ItemCreated
from graph.store import EventStore
from query.model_tokens import probe_tokenizer


def estimate_qa(
    store: EventStore, path: Path, feed: FeedConfig, reader: str, roles: LLMRoles, prompts: PromptSet,
    *, limit: int | None = None,
) -> DryRun:
    """The dry run of `eval qa` (reads the file and the graph; sends and writes nothing)."""
    from agents.retrieval_eval.datasets import _subset
    from ingest.adapters.longmemeval import load_longmemeval

    if not path.exists():
        raise QaError(f"{path}: no such LongMemEval file or folder")
    result = load_longmemeval(path, None)
    item_ids = _subset([e.event.item_id for e in result.events if isinstance(e.event, ItemCreated)], limit)
    questions = load_questions(store, item_ids)
    if len(questions) < len(item_ids):
        raise QaError(
            f"--dry-run reads the questions from the graph and {len(item_ids) - len(questions)} of {len(item_ids)} "
            f"of {path.name} are not there: ingest it first (`./colabench ingest {path}`, or one `eval qa` run)"
        )
    settings = roles.settings
    side = "memory" if roles.configured("memory") else "answerer"
    uses_side = feed.key_expansion == "facts" or feed.time_aware == "llm"
    run_id, _config, _models, qa_prompts, _hashes = plan_qa_run(
        result.dataset, item_ids, feed, reader, prompts,
        reader_model=settings["answerer"].model, judge_model=settings["judge"].model,
        fact_model=settings[side].model if uses_side else None,
        time_model=settings[side].model if feed.time_aware == "llm" else None,
        encoder_id=store.encoder.encoder_id if store.encoder is not None else None,
    )
    done = {r.item_id: r for r in answer_rows(store, run_id, questions)}
    histories = load_histories(store, [q.profile_id for q in questions])
    counter = probe_tokenizer(None, settings["answerer"].model).counter
    judge_counter = probe_tokenizer(None, settings["judge"].model).counter
    answerer = RoleEstimate("answerer", settings["answerer"].model, roles.configured("answerer"))
    judge = RoleEstimate("judge", settings["judge"].model, roles.configured("judge"))
    side_role = RoleEstimate(side, settings[side].model, roles.configured(side), tokens_in_at_max=None)
    reader_retries = settings["answerer"].invalid_output_retries if reader == "chain-of-note" else 0
    judge_retries = settings["judge"].invalid_output_retries
    to_answer = to_judge = 0
    for q in questions:
        row = done.get(q.item_id)
        if row is not None and row.answered and row.judged and bool(row.valid):
            continue
        sessions = histories.get(q.profile_id, [])
        if row is None or not row.answered:
            to_answer += 1

            def prompt_tokens(units: list[Any], q: Any = q) -> int:
                messages = render_messages(
                    qa_prompts.reader, history=history_json(units), asked_at=q.asked_at or "unknown",
                    question=q.question,
                )
                return counter.count([request_text({"messages": list(messages)})])[0]

            if feed.feed != "rag":  # the units fed are known without ranking: the prompt is the real one
                fed = feed_units(feed, prepare_question(feed, q, sessions, encoder=None, extractor=None))
                low = high = prompt_tokens(list(fed.units))
            else:
                units = sorted(build_units(sessions, feed.granularity), key=lambda u: len(u.text))
                low, high = prompt_tokens(units[: feed.k]), prompt_tokens(units[-feed.k :])
                if feed.key_expansion == "facts":
                    side_role.add(calls=0, most_calls=len(units), tokens=0, tokens_at_most=0, out_at_most=0)
                if feed.time_aware == "llm":
                    side_role.add(calls=1, most_calls=1, tokens=0, tokens_at_most=0, out_at_most=0)
            most = 1 + reader_retries
            answerer.add(
                calls=1, most_calls=most, tokens=low, tokens_at_most=high * most,
                out_at_most=settings["answerer"].max_tokens * most,
            )
        to_judge += 1
        template = qa_prompts.judges[grading_rule(q.question_id, q.question_type)]
        messages = render_messages(
            template, question=q.question, reference_label="Reference answer", reference=q.reference_answer,
            answer="(no answer)",
        )
        tokens = judge_counter.count([request_text({"messages": list(messages)})])[0]
        most = 1 + judge_retries
        judge.add(calls=1, most_calls=most, tokens=tokens, tokens_at_most=tokens * most,
                  out_at_most=settings["judge"].max_tokens * most)
    if feed.feed == "rag":
        answerer.basis.append(
            f"rag: the reader's input from the {feed.k} shortest units (fewest tokens) to the {feed.k} longest (the "
            "ranking is not run)"
        )
    else:
        answerer.basis.append(f"{feed.feed} feed: each reader prompt built and counted whole")
    answerer.basis.append(f"output: at most max_tokens={settings['answerer'].max_tokens} per call (a bound)")
    judge.basis.append(
        "the prompt of each question's grading rule with an empty answer (a lower bound); the most calls add "
        f"{judge_retries} re-ask(s)"
    )
    estimates = [answerer, judge]
    if side_role.calls_max:
        side_role.tokens_out_max = None
        side_role.basis.append(
            "fact extraction at most one call per unit; a time-range reading one per question; tokens not counted"
        )
        estimates.append(side_role)
    notes = [f"input tokens counted with {counter.name} (the endpoint's /tokenize is not asked)"]
    for e in estimates:
        if not e.configured:
            notes.append(f"role {e.role!r} has no LLM endpoint configured: a real run needs one (the dry run does not)")
    return DryRun(
        batch_id=run_id,
        dataset=result.dataset,
        items=len(questions),
        runs=[run_id],
        attempts=len(questions),
        to_answer=to_answer,
        to_judge=to_judge,
        roles=[e for e in estimates if e.calls_min or e.calls_max],
        tokenizer=counter.name,
        prices={e.role: role_price(settings[e.role], roles.prices) for e in estimates},
        notes=notes,
    )
