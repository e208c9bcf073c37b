"""`colabench eval qa`: the LongMemEval reading line (a reader answers each question from what the feed gives
it, a judge grades the answer under LongMemEval's rule for its type, printed per question type with the
retrieval figures of the same fed units beside it), and with `--system NAME` the memory-systems line on LoCoMo
or LongMemEval (agents/qa/memory_systems.py: build, search, answer, J over N judge runs, F1, BLEU-1)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from agents.llm.errors import LLMInterruptedError
from cli.context import console, err_console, expected_errors, open_store
from cli.endpoint_check import check_endpoints, endpoint_check_option
from cli.ingest_cmd import resolve_dataset_path
from cli.spending_options import limit_spending, max_cost_option, max_tokens_option

if TYPE_CHECKING:
    from agents.llm.client import LLMClient
    from agents.llm.roles import LLMRoles
    from agents.prompts.registry import PromptSet
    from agents.qa.feeds import FeedConfig

NEEDS_LLM = (
    "eval qa needs an LLM for the reader and the judge: set COLABENCH_LLM_BASE_URL and COLABENCH_LLM_MODEL (or "
    "the per-role COLABENCH_LLM_ANSWERER_* and COLABENCH_LLM_JUDGE_* settings; see `./colabench llm show`)"
)


@expected_errors
def qa(
    ctx: typer.Context,
    dataset: str = typer.Option("longmemeval", "--dataset", help="longmemeval | locomo (locomo needs --system)"),
    path: str = typer.Option(None, "--path", help="a LongMemEval JSON(.gz) file or folder, or a LoCoMo JSON file"),
    system: str = typer.Option(
        None, "--system", help="a registered memory system: build its memory, search it, answer, judge (J, F1, BLEU-1)"
    ),
    judge_runs: int = typer.Option(3, "--judge-runs", help="--system: independent judge runs (J is mean +/- std)"),
    feed: str = typer.Option("oracle", "--feed", help="oracle | full | rag"),
    recipe: str = typer.Option("RAW_TURNS", "--recipe", help="rag: the recipe whose memory channels rank the units"),
    k: int = typer.Option(
        None, "--k", help="rag: units fed to the reader (default 10); --system: memories fed (default: the system's)"
    ),
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
    dry_run: bool = typer.Option(
        False, "--dry-run",
        help="print questions, calls and tokens per role and the cost ([llm.prices]); send and write nothing",
    ),
    max_cost: float = max_cost_option(),
    max_tokens: int = max_tokens_option(),
    no_endpoint_check: bool = endpoint_check_option(),
) -> None:
    """Answer and judge every question (resumable: a rerun skips questions already answered and judged).
    `eval qa score FILE` re-scores a LoCoMo results file instead (no LLM)."""
    from agents.llm.roles import LLMRoles
    from agents.qa.errors import QaError
    from agents.qa.feeds import make_feed_config

    if ctx.invoked_subcommand is not None:
        return
    if path is None:
        raise QaError("eval qa needs --path (a LongMemEval file or folder), or `eval qa score FILE`")
    if system is not None:
        if dry_run:
            _memory_dry_run(dataset, path, system, k, judge_runs, limit, out, prompt or [])
            return
        qa_memory_system(
            dataset, path, system, k, judge_runs, limit, out, report, prompt or [], max_cost=max_cost,
            max_tokens=max_tokens, endpoint_check=not no_endpoint_check,
        )
        return
    if dataset == "locomo":
        raise QaError("--dataset locomo answers from a memory system's memories: add --system NAME (e.g. raw_turns)")
    if k is None:
        k = 10
    if dataset != "longmemeval":
        raise QaError(f"--dataset {dataset!r}: eval qa reads LongMemEval files only (--dataset longmemeval)")
    from agents.prompts.registry import PromptSet

    config = make_feed_config(feed, recipe, k, granularity, key_expansion, time_aware)
    prompts = PromptSet.from_config(prompt or [])  # a bad file or a hash mismatch stops here, before any LLM call
    source = resolve_dataset_path(path)
    roles = LLMRoles()
    try:
        if dry_run:
            _dry_run(roles, source, config, reader, prompts, limit, out)
            return
        _reading_line(
            roles, source, config, reader, prompts, limit, out, report, max_cost=max_cost, max_tokens=max_tokens,
            endpoint_check=not no_endpoint_check,
        )
    finally:
        roles.close()


def _reading_line(
    roles: LLMRoles,
    source: Path,
    config: FeedConfig,
    reader: str,
    prompts: PromptSet,
    limit: int | None,
    out: Path | None,
    report: Path | None,
    *,
    max_cost: float,
    max_tokens: int,
    endpoint_check: bool,
) -> None:
    """Run (or resume) the LongMemEval reading line and print it; without a reader and a judge, the rag feed's
    retrieval figures only, then exit 1 saying why."""
    from agents.qa.errors import QaError
    from agents.qa.runner import run_qa

    has_llm = roles.configured("answerer") and roles.configured("judge")
    if not has_llm and config.feed != "rag":
        raise QaError(NEEDS_LLM)
    fact_llm, time_llm = _expansion_clients(roles, config)
    reader_llm = roles.client("answerer") if has_llm else None
    judge_llm = roles.client("judge") if has_llm else None
    used = [c.role for c in (reader_llm, judge_llm, fact_llm, time_llm) if c is not None]
    limit_spending(roles, list(dict.fromkeys(used)), max_cost, max_tokens)
    check_endpoints(roles, used, endpoint_check)
    with open_store() as store:
        try:
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
        except LLMInterruptedError:
            if roles.budget_reason is None:
                raise
            _budget_stop(roles)
        if report is not None:
            write_qa_report(store, report)
    print_outcome(outcome)
    from agents.llm.traffic import traffic_lines

    for line in traffic_lines(roles.total_usage()):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
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


def _expansion_clients(roles: LLMRoles, config: FeedConfig) -> tuple[LLMClient | None, LLMClient | None]:
    """The clients that extract key facts (`--key-expansion facts`) and read time ranges (`--time-aware llm`):
    the memory role's, else the answerer's; QaError when neither is configured."""
    from agents.qa.errors import QaError

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
    return fact_llm, time_llm


def _dry_run(roles: Any, source: Path, config: Any, reader: str, prompts: Any, limit: int | None,
             out: Path | None) -> None:
    """What the QA run would send and cost; with --out the estimate as JSON. Sends and writes nothing."""
    from agents.qa.dry_run import estimate_qa
    from cli.dry_run_lines import print_dry_run

    with open_store() as store:
        estimate = estimate_qa(store, source, config, reader, roles, prompts, limit=limit)
    print_dry_run(estimate)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(estimate.as_dict(), indent=1), encoding="utf-8")
        console.print(f"wrote {out}")


def _memory_dry_run(
    dataset: str, path: str, system: str, k: int | None, judge_runs: int, limit: int | None, out: Path | None,
    prompt: list[str],
) -> None:
    """`eval qa --system NAME --dry-run`: what that run would send and cost; sends and writes nothing."""
    from agents.llm.roles import LLMRoles
    from agents.prompts.registry import PromptSet
    from agents.qa.errors import QaError
    from agents.qa.memory_systems import resolve_k
    from agents.qa.memory_systems_dry_run import estimate_memory_qa
    from cli.dry_run_lines import print_dry_run

    resolve_k(system, k)  # an unknown system or a bad k stops here
    if not 1 <= judge_runs <= 20:
        raise QaError(f"--judge-runs must lie in 1..20, got {judge_runs}")
    prompts = PromptSet.from_config(prompt)
    source = resolve_dataset_path(path)
    roles = LLMRoles()
    try:
        with open_store() as store:
            estimate = estimate_memory_qa(
                store, source, dataset=dataset, system=system, roles=roles, prompts=prompts, k=k,
                judge_runs=judge_runs, limit=limit,
            )  # fmt: skip
    finally:
        roles.close()
    print_dry_run(estimate)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(estimate.as_dict(), indent=1), encoding="utf-8")
        console.print(f"wrote {out}")


def _budget_stop(roles: Any) -> None:
    """A spending limit stopped the questions: what was answered and judged is kept; the same command resumes."""
    import shlex

    from cli.exit_codes import EXIT_ENDPOINT_OR_PARTIAL

    usage = roles.total_usage().get("total", {})
    err_console.print(
        f"[yellow]left incomplete[/]: {escape(str(roles.budget_reason))} ({roles.budget.describe()}); no new request "
        f"was sent ({usage.get('billed_tokens_in', 0):,} + {usage.get('billed_tokens_out', 0):,} billed tokens this "
        "time); every question answered and judged is kept (an answer whose verdict was not given yet is kept and "
        f"judged by the rerun). Resume with: {escape(shlex.join(['./colabench', *sys.argv[1:]]))}",
        highlight=False,
        soft_wrap=True,
    )
    raise typer.Exit(EXIT_ENDPOINT_OR_PARTIAL)
def qa_memory_system(
    dataset: str,
    path: str,
    system: str,
    k: int | None,
    judge_runs: int,
    limit: int | None,
    out: Path | None,
    report: Path | None,
    prompt: list[str],
    *,
    max_cost: float | None = None,
    max_tokens: int | None = None,
    endpoint_check: bool = True,
) -> None:
    """`eval qa --system NAME`: the memory-systems line, then the table of every system run on these questions."""
    from agents.llm.roles import LLMRoles
    from agents.memory.prepare import require_llm
    from agents.prompts.registry import PromptSet
    from agents.qa.errors import QaError
    from agents.qa.memory_systems import resolve_k, run_memory_qa
    from agents.qa.memory_systems_summary import collect_memory_runs

    resolve_k(system, k)  # an unknown system or a bad k stops here
    if not 1 <= judge_runs <= 20:
        raise QaError(f"--judge-runs must lie in 1..20, got {judge_runs}")
    prompts = PromptSet.from_config(prompt)  # a bad file or a hash mismatch stops here, before any LLM call
    source = resolve_dataset_path(path)
    roles = LLMRoles()
    try:
        if not (roles.configured("answerer") and roles.configured("judge")):
            raise QaError(NEEDS_LLM.replace("the reader", "the answerer"))
        memory_llm = roles.client("memory") if roles.configured("memory") else None
        require_llm(system, memory_llm)
        judges = [roles.repeat_client("judge", n) for n in range(1, judge_runs + 1)]
        used = ["answerer", "judge", *(["memory"] if memory_llm is not None else [])]
        limit_spending(roles, used, max_cost, max_tokens)
        check_endpoints(roles, used, endpoint_check)
        with open_store() as store:
            try:
                outcome = run_memory_qa(
                    store,
                    source,
                    dataset=dataset,
                    system=system,
                    answer_llm=roles.client("answerer"),
                    judge_llms=judges,
                    memory_llm=memory_llm,
                    k=k,
                    judge_runs=judge_runs,
                    limit=limit,
                    prompts=prompts,
                )
            except LLMInterruptedError:
                if roles.budget_reason is None:
                    raise
                _budget_stop(roles)
            groups = collect_memory_runs(store)
            if report is not None:
                write_memory_qa_report(groups, report)
        print_memory_outcome(outcome)
        side_by_side = [g for g in groups if any(s.qa_run_id == outcome.qa_run_id for s in g["runs"])]
        if side_by_side and len(side_by_side[0]["runs"]) > 1:
            print_side_by_side(side_by_side[0])
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            payload = {
                "qa_run_id": outcome.qa_run_id,
                "config": outcome.config,
                "summary": outcome.summary.model_dump(mode="json", exclude={"rows"}),
                "build_this_pass": outcome.build,
                "notes": outcome.notes,
            }
            out.write_text(json.dumps(payload, indent=1), encoding="utf-8")
            console.print(f"wrote {out}")
    finally:
        roles.close()


def _j(mean: float | None, std: float | None) -> str:
    if mean is None:
        return "-"
    return f"{mean * 100:.2f}" + (f" ± {std * 100:.2f}" if std is not None else "")


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.2f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def print_memory_outcome(outcome: Any) -> None:
    s = outcome.summary
    table = Table(
        title=f"{s.label}: J over {s.judge_runs} judge run(s) (mean ± std), F1, BLEU-1 per category",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        show_edge=False,
    )
    for name in ("category", "n", "answered", "J", "F1", "BLEU-1"):
        table.add_column(name, justify="left" if name == "category" else "right")
    rows = [*s.categories, *([s.overall] if s.overall else [])]
    for c in rows:
        table.add_row(c.label, str(c.n), str(c.n_answered), _j(c.j_mean, c.j_std), _score(c.f1), _score(c.bleu1))
    if s.adversarial is not None:
        a = s.adversarial
        table.add_row(a.label, str(a.n), str(a.n_answered), _j(a.j_mean, a.j_std), "excluded", "excluded")
    console.print(table)
    build = s.build
    console.print(
        f"k = {s.k} ({s.k_source}); search p50 {_ms(s.search_ms_p50)} ms, p95 {_ms(s.search_ms_p95)} ms; "
        f"{s.memories_fed_mean or 0:.1f} memories, {s.memory_tokens_mean or 0:,.0f} memory tokens fed per question"
    )
    console.print(
        f"adding memories: {build.get('llm_calls', 0):,} LLM call(s), {build.get('tokens_in', 0):,} tokens in, "
        f"{build.get('tokens_out', 0):,} out over {build.get('build_steps', 0):,} build step(s); "
        f"{build.get('live_memories', 0):,} memories held; run {outcome.qa_run_id}"
    )
    if outcome.per_question_ms:
        harness = [t - llm for t, llm in zip(outcome.per_question_ms, outcome.llm_ms, strict=True)]
        console.print(
            f"[dim]{len(harness)} question(s) this time: {sum(harness) / len(harness):.1f} ms each outside LLM calls; "
            f"{outcome.answered_now} answered, {outcome.judged_now} verdicts, {outcome.skipped_done} were done[/]"
        )
    for note in [*outcome.notes, *s.notes, f"BLEU-1 tokens: {s.bleu_tokenizer}"]:
        console.print(f"[yellow]note:[/] {note}")


def print_side_by_side(group: dict[str, Any]) -> None:
    runs = group["runs"]
    table = Table(
        title=f"memory systems side by side on {group['dataset']} ({group['n_items']} questions)",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        show_edge=False,
    )
    table.add_column("category", justify="left")
    for s in runs:
        table.add_column(f"{s.label} J", justify="right")
    labels = list(dict.fromkeys(c.label for s in runs for c in [*s.categories, s.overall] if c is not None))
    for label in labels:
        cells = []
        for s in runs:
            found = next((c for c in [*s.categories, s.overall] if c is not None and c.label == label), None)
            cells.append(_j(found.j_mean, found.j_std) if found else "-")
        table.add_row(label, *cells)
    table.add_row(
        "abstention (adversarial)",
        *[_j(s.adversarial.j_mean, s.adversarial.j_std) if s.adversarial else "-" for s in runs],
    )
    table.add_row("F1 overall", *[_score(s.overall.f1 if s.overall else None) for s in runs])
    table.add_row("BLEU-1 overall", *[_score(s.overall.bleu1 if s.overall else None) for s in runs])
    table.add_row("search p50 / p95 ms", *[f"{_ms(s.search_ms_p50)} / {_ms(s.search_ms_p95)}" for s in runs])
    table.add_row("memory tokens / question", *[f"{s.memory_tokens_mean or 0:,.0f}" for s in runs])
    table.add_row("add: LLM calls", *[f"{s.build.get('llm_calls', 0):,}" for s in runs])
    table.add_row(
        "add: tokens in + out", *[f"{s.build.get('tokens_in', 0) + s.build.get('tokens_out', 0):,}" for s in runs]
    )
    console.print(table)
    for note in group.get("notes", []):
        console.print(f"[yellow]note:[/] {note}")
    split = group["disagreements"]
    console.print(f"{len(split)} question(s) where the systems' majority verdicts differ")
    for d in split[:20]:
        verdicts = ", ".join(
            f"{label}: {'CORRECT' if v['correct'] else 'WRONG'} ({v['runs_correct']}/{v['runs']})"
            for label, v in d.by_system.items()
        )
        console.print(f"  [{d.category}] {d.question} — {verdicts}")


def write_memory_qa_report(groups: list[dict[str, Any]], path: Path) -> None:
    """A self-contained HTML page of every memory-systems QA run, systems side by side."""
    from agents.reports.sections.qa_memory_systems import memory_systems_html

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>colabench eval qa --system</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}.muted{color:#666}</style></head><body>"
        + memory_systems_html(groups)
        + "</body></html>",
        encoding="utf-8",
    )
    console.print(f"wrote {path} ({sum(len(g['runs']) for g in groups)} memory-systems QA run(s))")


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
    judge_runs: int = typer.Option(
        3, "--judge-runs", help="with a judge configured: independent judge runs (J is mean +/- std); 0: no judge"
    ),
    prompt: list[str] = typer.Option(
        None, "--prompt", help="NAME=PATH[@SHA256]: replace a judge prompt (judge_memory_systems_qa / _adversarial)"
    ),
    max_cost: float = max_cost_option(),
    max_tokens: int = max_tokens_option(),
    no_endpoint_check: bool = endpoint_check_option(),
) -> None:
    """Re-score a LoCoMo QA results file of the memory-systems harness: token F1 and BLEU-1 per category 1-4
    and overall, category 5 (adversarial) counted apart; J from colabench's binary judge when the judge role is
    configured (N runs, mean +/- std; category 5 as the abstention rate), else the file's own labels. No graph."""
    from agents.llm.roles import LLMRoles
    from agents.prompts.memory_systems_qa import JUDGE_MEMORY_SYSTEMS_ADVERSARIAL, JUDGE_MEMORY_SYSTEMS_QA
    from agents.prompts.registry import PromptSet
    from agents.qa.errors import QaError
    from agents.qa.locomo_scores import read_results_file, score_results
    from agents.qa.results_judge import judge_results

    if not file.is_file():
        raise FileNotFoundError(f"{file}: no such results file")
    if not 0 <= judge_runs <= 20:
        raise QaError(f"--judge-runs must lie in 0..20, got {judge_runs}")
    prompts = PromptSet.from_config(prompt or [])  # a bad file or a hash mismatch stops here, before any LLM call
    results = read_results_file(file)  # a malformed file stops here, before any LLM call
    labels = None
    roles = LLMRoles()
    try:
        if judge_runs and roles.configured("judge"):
            limit_spending(roles, ["judge"], max_cost, max_tokens)
            check_endpoints(roles, ["judge"], not no_endpoint_check)
            judges = [roles.repeat_client("judge", n) for n in range(1, judge_runs + 1)]
            try:
                labels = judge_results(
                    results,
                    judges,
                    source=str(file.resolve()),
                    answer_prompt=prompts[JUDGE_MEMORY_SYSTEMS_QA.name],
                    adversarial_prompt=prompts[JUDGE_MEMORY_SYSTEMS_ADVERSARIAL.name],
                    workers=roles.settings["judge"].concurrency,
                    say=lambda text: err_console.print(text, highlight=False),
                )
            except LLMInterruptedError:
                if roles.budget_reason is None:
                    raise
                _budget_stop(roles)
        report = score_results(results, str(file), labels)
    finally:
        roles.close()
    print_scores(file, report)
    if out is not None:
        out.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
        console.print(f"scores: {out}")


def print_scores(file: Path, report: Any) -> None:
    """The per-category table of `eval qa score`: F1, BLEU-1, J (the judge's and/or the file's)."""
    table = Table(title=f"LoCoMo QA scores of {file.name} ({report.n_questions} questions)", box=box.SIMPLE)
    judged = report.j_source == "judge"
    file_column = any(row.n_j for row in [*report.categories, report.overall])
    columns = ["category", "n", "F1", "BLEU-1"]
    columns += [f"J (judge, {report.judge['runs']} run(s))"] if judged else []
    columns += ["J (file)"] if file_column or not judged else []
    for column in columns:
        table.add_column(column, justify="left" if column == "category" else "right")
    rows = [*report.categories, report.overall, *([report.abstention] if report.abstention else [])]
    for row in rows:
        cells = [
            row.category,
            str(row.n),
            "n/a" if row.f1 is None else f"{row.f1 * 100:.2f}",
            "n/a" if row.bleu1 is None else f"{row.bleu1 * 100:.2f}",
        ]
        if judged:
            cells.append(_j(row.j_judge, row.j_judge_std))
        if file_column or not judged:
            cells.append("n/a" if row.j is None else f"{row.j * 100:.2f} (n={row.n_j})")
        table.add_row(*cells)
    console.print(table)
    for note in report.notes:
        console.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
