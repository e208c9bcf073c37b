"""`colabench eval qa`: the LongMemEval reading line. A reader answers each question from what the feed gives
it, a judge grades the answer under LongMemEval's rule for its type, and the results are printed per question
type with the retrieval figures of the same fed units beside them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.table import Table

from cli.context import console, err_console, expected_errors, open_store
from cli.endpoint_check import check_endpoints, endpoint_check_option
from cli.ingest_cmd import resolve_dataset_path

NEEDS_LLM = (
    "eval qa needs an LLM for the reader and the judge: set COLABENCH_LLM_BASE_URL and COLABENCH_LLM_MODEL (or "
    "the per-role COLABENCH_LLM_ANSWERER_* and COLABENCH_LLM_JUDGE_* settings; see `./colabench llm show`)"
)


@expected_errors
def qa(
    ctx: typer.Context,
    dataset: str = typer.Option("longmemeval", "--dataset", help="longmemeval (the only QA dataset so far)"),
    path: str = typer.Option(None, "--path", help="a longmemeval_s*/longmemeval_oracle* JSON(.gz) file or folder"),
    feed: str = typer.Option("oracle", "--feed", help="oracle | full | rag"),
    recipe: str = typer.Option("RAW_TURNS", "--recipe", help="rag: the recipe whose memory channels rank the units"),
    k: int = typer.Option(10, "--k", help="rag: units fed to the reader"),
    granularity: str = typer.Option("round", "--granularity", help="rag: round (user turn + reply) | session"),
    key_expansion: str = typer.Option("none", "--key-expansion", help="rag: none | facts (LLM facts appended to keys)"),
    time_aware: str = typer.Option(
        "none",
        "--time-aware",
        help="rag: narrow candidates to the question's time range, read by rules | llm (LongMemEval's) | none",
    ),
    reader: str = typer.Option("direct", "--reader", help="direct | chain-of-note"),
    limit: int = typer.Option(None, "--limit", help="at most this many questions (stable subset)"),
    out: Path = typer.Option(None, "--out", help="write the run summary as JSON here"),
    report: Path = typer.Option(None, "--report", help="write an HTML page of every QA run in the graph here"),
    prompt: list[str] = typer.Option(
        None, "--prompt", help="NAME=PATH[@SHA256]: a reader / judge / facts prompt file (repeatable)"
    ),
    no_endpoint_check: bool = endpoint_check_option(),
) -> None:
    """Answer and judge every question (resumable: a rerun skips questions already answered and judged).
    `eval qa score FILE` re-scores a LoCoMo results file instead (no LLM)."""
    from agents.llm.roles import LLMRoles
    from agents.qa.errors import QaError
    from agents.qa.feeds import make_feed_config
    from agents.qa.runner import run_qa

    if ctx.invoked_subcommand is not None:
        return
    if path is None:
        raise QaError("eval qa needs --path (a LongMemEval file or folder), or `eval qa score FILE`")

    if dataset != "longmemeval":
        raise QaError(f"--dataset {dataset!r}: eval qa reads LongMemEval files only (--dataset longmemeval)")
    from agents.prompts.registry import PromptSet

    config = make_feed_config(feed, recipe, k, granularity, key_expansion, time_aware)
    prompts = PromptSet.from_config(prompt or [])  # a bad file or a hash mismatch stops here, before any LLM call
    source = resolve_dataset_path(path)
    roles = LLMRoles()
    try:
        has_llm = roles.configured("answerer") and roles.configured("judge")
        if not has_llm and config.feed != "rag":
            raise QaError(NEEDS_LLM)
        fact_llm = None
        if config.key_expansion == "facts":
            role = "memory" if roles.configured("memory") else "answerer"
            if not roles.configured(role):
                raise QaError("--key-expansion facts extracts facts with an LLM: " + NEEDS_LLM.split(": ", 1)[1])
            fact_llm = roles.client(role)
        time_llm = None
        if config.time_aware == "llm":
            role = "memory" if roles.configured("memory") else "answerer"
            if not roles.configured(role):
                raise QaError(
                    "--time-aware llm reads each question's time range with an LLM (`--time-aware rules` needs none): "
                    + NEEDS_LLM.split(": ", 1)[1]
                )
            time_llm = roles.client(role)
        reader_llm = roles.client("answerer") if has_llm else None
        judge_llm = roles.client("judge") if has_llm else None
        used = [llm.settings.role for llm in (reader_llm, judge_llm, fact_llm, time_llm) if llm is not None]
        check_endpoints(roles, used, not no_endpoint_check)
        with open_store() as store:
            outcome = run_qa(
                store,
                source,
                config,
                reader=reader,
                reader_llm=reader_llm,
                judge_llm=judge_llm,
                fact_llm=fact_llm,
                time_llm=time_llm,
                limit=limit,
                progress_every_s=10.0,
                prompts=prompts,
            )
            if report is not None:
                write_qa_report(store, report)
        print_outcome(outcome)
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            payload: dict[str, Any] = {
                "qa_run_id": outcome.qa_run_id,
                "config": outcome.config,
                "retrieval_only": outcome.retrieval_only,
                "summary": outcome.summary.model_dump(mode="json", exclude={"rows"}),
                "seconds": outcome.seconds,
                "notes": outcome.notes,
            }
            out.write_text(json.dumps(payload, indent=1), encoding="utf-8")
            console.print(f"wrote {out}")
        if not has_llm:
            err_console.print(f"[bold red]error:[/] {NEEDS_LLM}; only the retrieval figures above were computed")
            sys.exit(1)
    finally:
        roles.close()


def write_qa_report(store: Any, path: Path) -> None:
    """A self-contained HTML page with the QA section of the evaluation report (every QA run in the graph)."""
    from agents.reports.sections.qa_reading import _html, collect_qa_runs

    runs = collect_qa_runs(store.driver, store.database)
    body = _html({"runs": runs}, {})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>colabench eval qa</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}.muted{color:#666}</style></head><body>"
        + body
        + "</body></html>",
        encoding="utf-8",
    )
    console.print(f"wrote {path} ({len(runs)} QA run(s))")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def print_outcome(outcome: Any) -> None:
    summary = outcome.summary
    title = f"{summary.label}: accuracy per question type, retrieval figures of the same fed units beside it"
    if outcome.retrieval_only:
        title = f"RETRIEVAL ONLY (no LLM configured: nothing was read or judged) — {summary.label}"
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False)
    for name in (
        "type",
        "n",
        "judged",
        "accuracy",
        "recall_any@k",
        "recall_all@k",
        "ndcg@k",
        "session all",
        "reading miss",
        "retrieval miss",
        "reader ms",
        "tokens",
    ):
        table.add_column(name, justify="left" if name == "type" else "right")
    for t in [*summary.per_type, summary.overall]:
        d = t.diagnosis or {}
        table.add_row(
            t.question_type,
            str(t.n),
            str(t.n_judged),
            _pct(t.accuracy),
            _pct(t.recall_any),
            _pct(t.recall_all),
            _pct(t.ndcg),
            _pct(t.session_recall_all),
            str(d.get("retrieved_wrong", "-")),
            str(d.get("missed_wrong", "-")),
            f"{t.mean_reader_ms or 0:,.0f}",
            f"{t.mean_tokens or 0:,.0f}",
        )
    console.print(table)
    if not outcome.retrieval_only:
        console.print(f"task-averaged accuracy {_pct(summary.task_averaged_accuracy)}; run {outcome.qa_run_id}")
    if summary.time_ranges:
        counts = summary.time_ranges
        console.print(
            f"time ranges ({outcome.config.get('time_aware')}): {counts.get('range', 0)} read, "
            f"{counts.get('none', 0)} none, {counts.get('no_date', 0)} without a question date, "
            f"{counts.get('invalid', 0)} invalid (re-asked, then not narrowed)"
        )
    if outcome.per_question_ms:
        mean_ms = sum(outcome.per_question_ms) / len(outcome.per_question_ms)
        console.print(
            f"[dim]{len(outcome.per_question_ms)} question(s) this time, {mean_ms:.1f} ms each "
            f"({outcome.llm_seconds:.2f} s inside LLM calls); phases: {outcome.seconds}[/]"
        )
    for note in outcome.notes:
        console.print(f"[yellow]note:[/] {note}")


def retrieval_expansion(key_expansion: str, time_aware: str, prompts: list[str] | None = None) -> tuple[Any, Any]:
    """(RetrievalExpansion or None, the LLM roles to close or None) for `eval retrieval`'s expansion options;
    key expansion and `--time-aware llm` need the `memory` role (or a general endpoint); `prompts` are
    `--prompt NAME=PATH[@SHA256]` replacements of `qa_key_facts` / `qa_time_range`."""
    from agents.prompts.registry import PromptSet
    from agents.retrieval_eval.expansion_rows import RetrievalExpansion
    from query.expansion.keys import check_key_expansion
    from query.expansion.time_range import check_time_aware

    expansion = check_key_expansion(key_expansion)
    time_source = check_time_aware(time_aware)
    chosen = PromptSet.from_config(prompts or [])  # a bad file or a hash mismatch stops here, before any LLM call
    if expansion == "none" and time_source == "none":
        return None, None
    if expansion == "none" and time_source == "rules":
        return RetrievalExpansion(time_aware="rules"), None
    from agents.llm.roles import LLMRoles
    from agents.prompts.qa_reading import QA_FACTS, QA_TIME_RANGE
    from agents.qa.errors import QaError
    from agents.qa.facts import llm_fact_extractor
    from agents.qa.time_range import llm_time_range_reader

    roles = LLMRoles()
    if not roles.configured("memory"):
        roles.close()
        needs = "--key-expansion facts extracts facts" if expansion == "facts" else "--time-aware llm reads time ranges"
        raise QaError(
            f"{needs} with an LLM: set COLABENCH_LLM_BASE_URL (or COLABENCH_LLM_MEMORY_BASE_URL) and a model"
            + ("; `--time-aware rules` needs none" if time_source == "llm" else "")
        )
    llm = roles.client("memory")
    facts_prompt, time_prompt = chosen[QA_FACTS.name], chosen[QA_TIME_RANGE.name]
    used = [t for t, on in ((facts_prompt, expansion == "facts"), (time_prompt, time_source == "llm")) if on]
    return (
        RetrievalExpansion(
            expansion,
            time_source,
            llm_fact_extractor(llm, facts_prompt) if expansion == "facts" else None,
            time_reader=llm_time_range_reader(llm, time_prompt) if time_source == "llm" else None,
            prompts={t.name: t.record() for t in used},
        ),
        roles,
    )


@expected_errors
def score(
    file: Path = typer.Argument(..., help="a results file: {conversation: [{question, answer, response, category}]}"),
    out: Path = typer.Option(None, "--out", help="write the scores as JSON here"),
) -> None:
    """Re-score a LoCoMo QA results file of the memory-systems harness: token F1 and BLEU-1 per category 1-4
    and overall, category 5 (adversarial) counted apart, J where the file records it. No LLM, no graph."""
    from agents.qa.locomo_scores import score_results_file

    if not file.is_file():
        raise FileNotFoundError(f"{file}: no such results file")
    report = score_results_file(file)
    table = Table(title=f"LoCoMo QA scores of {file.name} ({report.n_questions} questions)", box=box.SIMPLE)
    for column in ("category", "n", "F1", "BLEU-1", "J (file)"):
        table.add_column(column, justify="left" if column == "category" else "right")
    for row in [*report.categories, report.overall]:
        table.add_row(
            row.category,
            str(row.n),
            "n/a" if row.f1 is None else f"{row.f1 * 100:.2f}",
            "n/a" if row.bleu1 is None else f"{row.bleu1 * 100:.2f}",
            "n/a" if row.j is None else f"{row.j * 100:.2f} (n={row.n_j})",
        )
    console.print(table)
    for note in report.notes:
        console.print(f"note: {note}")
    if out is not None:
        out.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
        console.print(f"scores: {out}")
