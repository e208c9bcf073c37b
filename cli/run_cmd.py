"""`colabench run`: evaluate methods on a dataset (answers, judgments, metrics), resumable, with a report."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.markup import escape
from rich.progress import Progress, TaskID
from rich.table import Table

from cli.context import console, err_console, expected_errors, open_store
from cli.endpoint_check import check_endpoints, endpoint_check_option
from cli.exit_codes import EXIT_ENDPOINT_OR_PARTIAL, EXIT_INTERRUPTED
from cli.progress_lines import progress_bar
from cli.ray_options import check_executor, ray_address_option
from cli.resume_hint import resume_command
from cli.spending_options import limit_spending, max_cost_option, max_tokens_option
from graph.errors import BadInputError, UsageError


def register(app: typer.Typer) -> None:
    app.command("run")(run)


class _BarProgress:
    """The runner's progress as one rich bar per run; stages printed above the bars."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.tasks: dict[str, TaskID] = {}

    def stage(self, text: str) -> None:
        self.bar.console.print(f"[dim]...[/] {text}")

    def run_started(self, run_id: str, label: str, total: int, done: int) -> None:
        self.tasks[run_id] = self.bar.add_task(f"{label:<26}", total=total, completed=done)

    def item_done(self, run_id: str) -> None:
        self.bar.advance(self.tasks[run_id])


def _resolve_dataset(store: Any, dataset: str) -> str:
    """A dataset name with items in the graph; `sample` and paths are ingested first when needed."""
    from agents.runs.plan import known_datasets
    from cli.ingest_cmd import resolve_dataset_path
    from ingest.pipeline import load_input, write_events

    known = known_datasets(store)
    if dataset in known:
        return dataset
    path = resolve_dataset_path(dataset)
    if not path.exists():
        listing = ", ".join(sorted(known)) or "none"
        raise BadInputError(f"{dataset!r} is neither a dataset in the graph ({listing}) nor a path")
    with console.status(f"reading {path} ..."):
        result = load_input(path)
    if result.dataset not in known:
        console.print(f"dataset {result.dataset!r} is not in the graph yet: ingesting {path}")
        with progress_bar() as bar:
            task = bar.add_task("appending events", total=None)
            write_events(store, result, progress=lambda _p, done, total: bar.update(task, completed=done, total=total))
    return result.dataset


# The options of `run`, one constant each (typer reads each option from its parameter's default).
_METHODS = typer.Option(
    "MEMKB,HYBRID", help="comma-separated method names, `all` (the paper's five) or `every` (all registered)"
)
_DATASET = typer.Option("sample", help="a dataset name in the graph, a path to ingest, or `sample`")
_ITEMS = typer.Option(
    None,
    min=1,
    help="only N items: with an LLM, the first N by item id (or the first N --item ids, in the order given); "
    "without one, the retrieval line takes a stable subset of N chosen by the hash of the item ids",
)
_ITEM = typer.Option(None, "--item", help="only these item ids (repeatable)")
_CONCURRENCY = typer.Option(4, min=1, max=64, help="attempts in flight at once")
_JUDGES = typer.Option(
    "accuracy,error_analysis",
    help="comma-separated judges: accuracy, quality, error_analysis, abstention, gotcha (the last two judge "
    "only abstention and gotcha items); all (every one of the five) or none",
)
_MAX_ROUNDS = typer.Option(4, min=0, max=20, help="tool-call rounds before the final answer round")
_MAX_CALLS_PER_ROUND = typer.Option(
    None, min=1, max=32, help="refuse tool calls of a round beyond N (default: no cap, as in the paper)"
)
_JUDGE_MODELS = typer.Option(
    None,
    "--judge-models",
    metavar="A,B",
    help="judge accuracy with each model on the judge endpoint; the first is the primary judge (metrics), "
    "the others a panel for judge agreement",
)
_JUDGE_CONTEXT_CHARS = typer.Option(
    None, min=1, help="judge context budget in characters (default: none, judges see everything whole)"
)
_FRESH = typer.Option(False, "--fresh", help="start a new batch instead of resuming the same one")
_RESUME = typer.Option(
    None, "--resume", metavar="BATCH", help="continue this batch (e.g. one started with --fresh)"
)
_PROMPT = typer.Option(None, "--prompt", help="NAME=PATH[@SHA256]: use a prompt file (repeatable)")
_REPORT = typer.Option(True, "--report/--no-report", help="write the report when done")
_OUT = typer.Option(None, help="report folder (default .data/reports/<batch>)")
_RETRY_FAILED = typer.Option(
    False, "--retry-failed", help="also try again attempts the endpoint refused (HTTP 400/401/403/404) before"
)
_STRICT_MODEL = typer.Option(
    False, "--strict-model",
    help="fail a request whose reply names another model than the role's configured one (default: warn)",
)
_WORKER = typer.Option(
    False,
    "--worker",
    help="share the batch with other `run --worker` processes on the same graph: claim each attempt first",
)
_CLAIM_TTL = typer.Option(
    300.0, "--claim-ttl", min=1.0, metavar="SECONDS",
    help="with --worker: a dead worker's claims are taken over after this many seconds",
)
_WORKER_ID = typer.Option(
    None, "--worker-id",
    help="with --worker: this worker's name (default host:pid); with --executor ray: its actors' prefix",
)
_EXECUTOR = typer.Option(
    "threads", "--executor", metavar="threads|ray",
    help="where attempts run: this process's threads, or Ray actors (each claims its attempts; an optional "
    "extra: COLABENCH_RAY=1 ./colabench ...); --concurrency is the number of actors",
)
_DRY_RUN = typer.Option(
    False, "--dry-run",
    help="print items, attempts, calls and tokens per role and the cost ([llm.prices]); send and write nothing",
)


@expected_errors
def run(
    methods: str = _METHODS,
    dataset: str = _DATASET,
    items: int = _ITEMS,
    item: list[str] = _ITEM,
    concurrency: int = _CONCURRENCY,
    judges: str = _JUDGES,
    max_rounds: int = _MAX_ROUNDS,
    max_calls_per_round: int = _MAX_CALLS_PER_ROUND,
    judge_models: str = _JUDGE_MODELS,
    judge_context_chars: int = _JUDGE_CONTEXT_CHARS,
    fresh: bool = _FRESH,
    resume: str = _RESUME,
    prompt: list[str] = _PROMPT,
    report: bool = _REPORT,
    out: Path = _OUT,
    retry_failed: bool = _RETRY_FAILED,
    strict_model: bool = _STRICT_MODEL,
    worker: bool = _WORKER,
    claim_ttl: float = _CLAIM_TTL,
    worker_id: str = _WORKER_ID,
    executor: str = _EXECUTOR,
    ray_address: str = ray_address_option(),
    dry_run: bool = _DRY_RUN,
    max_cost: float = max_cost_option(),
    max_tokens: int = max_tokens_option(),
    no_endpoint_check: bool = endpoint_check_option(),
) -> None:
    """Run methods over a dataset's items: state summaries, answers under the 4-round budget, judgments, all
    written as events. Resumable: run the same command again after a crash. Without an LLM configured it
    runs the retrieval line only and says what it skipped. `--dry-run` says what it would send and cost, sending
    and writing nothing. `--max-cost` / `--max-tokens` stop it cleanly when reached (resumable). Exit codes: 0
    every attempt answered, 1 a crash or an expected error, 2 bad input, 3 some attempts or judgments failed at
    the endpoint or a budget stopped it, 130 Ctrl-C."""
    from agents.judging.panel import parse_judge_models
    from agents.methods import parse_methods
    from agents.prompts.registry import PromptSet

    if fresh and resume:
        raise BadInputError("--fresh starts a new batch and --resume continues one: give only one of them")
    check_executor(executor, ray_address, "threads")
    specs = parse_methods(methods)
    judge_kinds = _parse_judges(judges)
    panel = parse_judge_models(judge_models, judge_kinds)
    roles = _llm_roles(strict_model, panel)
    prompts = PromptSet.from_config(prompt or [])
    with open_store() as store:
        if dry_run:
            _dry_run(store, dataset, specs, judge_kinds, panel, roles, prompts, items, item, max_rounds,
                     max_calls_per_round, judge_context_chars, fresh, resume)
            return
        if not roles.configured("answerer"):
            _retrieval_line_only(store, dataset, specs, items, item, out)
            return
        name = _resolve_dataset(store, dataset)
        _warn_about_shape(store, name)
        needed_roles = _check_roles(roles, specs, judge_kinds, panel, executor, max_cost, max_tokens,
                                    not no_endpoint_check)
        options = _run_options(name, items, item, max_rounds, max_calls_per_round, judge_kinds, judge_context_chars,
                               panel, fresh, resume)
        outcome = _plan_and_execute(store, specs, options, roles, prompts, needed_roles, concurrency=concurrency,
                                    retry_failed=retry_failed, worker=worker, worker_id=worker_id, claim_ttl=claim_ttl,
                                    executor=executor, ray_address=ray_address, report=report, out=out)
    if outcome.failed or outcome.stopped is not None:
        raise typer.Exit(EXIT_ATTEMPTS_FAILED)


# `run` follows cli/exit_codes.py: 3 when the batch finished but some attempts or judgments failed at the endpoint.
EXIT_ATTEMPTS_FAILED = EXIT_ENDPOINT_OR_PARTIAL


def _llm_roles(strict_model: bool, panel: tuple[str, ...]) -> Any:
    """The LLM roles of the run: every role strict about the served model with --strict-model; the judge role
    on the panel's first model with --judge-models."""
    from agents.llm.roles import LLMRoles
    from agents.llm.settings import ROLES

    overrides: dict[str, dict[str, Any]] = {role: {"strict_model": True} for role in ROLES} if strict_model else {}
    if panel:
        overrides.setdefault("judge", {})["model"] = panel[0]
    return LLMRoles(overrides=overrides)


def _retrieval_line_only(
    store: Any, dataset: str, specs: Any, items: int | None, item: list[str] | None, out: Path | None
) -> None:
    """No answerer configured: say what is skipped, then run the retrieval line only (with its report)."""
    from cli.report_cmd import run_retrieval_only

    err_console.print(
        "[yellow]no LLM configured[/] (COLABENCH_LLM_BASE_URL, or base_url in the \\[llm] table of "
        "colabench.toml, is unset): skipping state summaries, answers and judging; "
        "running the retrieval line only."
    )
    run_retrieval_only(store, dataset, specs, items=items, item_ids=item or [], out=out)


def _check_roles(
    roles: Any, specs: Any, judge_kinds: tuple[str, ...], panel: tuple[str, ...], executor: str,
    max_cost: float | None, max_tokens: int | None, check: bool,
) -> set[str]:
    """The roles the methods and judges need beside the answerer, each refused at the door when it has no
    endpoint; the spending limits set; then (`check`) each role answers and serves its model, before any work."""
    from agents.runs.plan import roles_for

    needed_roles = {role for spec in specs for role in roles_for(spec, judge_kinds)}
    for role in ("judge", "state", "memory"):
        if role in needed_roles and not roles.configured(role):
            raise UsageError(f"role {role!r} has no LLM endpoint; set COLABENCH_LLM_{role.upper()}_BASE_URL")
    if executor == "ray" and (max_cost is not None or max_tokens is not None):
        raise typer.BadParameter(
            "spending limits are checked in this process: use them with --executor threads",
            param_hint="--max-cost",
        )
    limit_spending(roles, sorted(needed_roles | {"answerer"}), max_cost, max_tokens, panel=panel or ())
    # Before any work (and before the batch is planned): each role answers and serves its model.
    check_endpoints(roles, ["answerer", *sorted(needed_roles)], check, models=panel or ())
    return needed_roles


def _run_options(
    dataset: str, items: int | None, item: list[str] | None, max_rounds: int, max_calls_per_round: int | None,
    judge_kinds: tuple[str, ...], judge_context_chars: int | None, panel: tuple[str, ...], fresh: bool,
    resume: str | None,
) -> Any:
    """The batch's options (RunOptions) from the command's flags."""
    from agents.answerer import Budget
    from agents.runs.plan import RunOptions

    return RunOptions(
        dataset=dataset, items=items, item_ids=tuple(item or ()),
        budget=Budget(max_tool_rounds=max_rounds, max_calls_per_round=max_calls_per_round),
        judges=judge_kinds, judge_context_chars=judge_context_chars, judge_models=panel, fresh=fresh,
        resume_batch=resume,
    )


def _plan_and_execute(
    store: Any, specs: Any, options: Any, roles: Any, prompts: Any, needed_roles: set[str], *, concurrency: int,
    retry_failed: bool, worker: bool, worker_id: str | None, claim_ttl: float, executor: str,
    ray_address: str | None, report: bool, out: Path | None,
) -> Any:
    """Plan the batch and say what it is, open the claims and the Ray executor when asked, run it with a progress
    bar per run, then print the outcome and write the report; returns the BatchReport."""
    from agents.runs.plan import plan_batch
    from graph.embeddings import CachedEncoder
    from query.retriever import Retriever

    assert isinstance(store.encoder, CachedEncoder)
    retriever = Retriever(store.driver, store.encoder, store.database)
    plan = plan_batch(store, specs, options, roles, prompts, encoder_id=store.encoder.encoder_id)
    _announce_batch(plan, options, roles, needed_roles, concurrency, executor)
    claims = _open_claims(store, worker, worker_id, claim_ttl, executor)
    ray_executor = _ray_executor(claims, roles, prompts, concurrency, ray_address) if executor == "ray" else None
    outcome = _execute(store, retriever, plan, roles, prompts, concurrency, retry_failed, claims, ray_executor)
    _print_outcome(
        outcome, cache=roles.cache_path if roles.cache is not None else None, resume=resume_command(plan.batch_id)
    )
    if outcome.stopped is not None:
        err_console.print(
            f"[yellow]left incomplete[/]: {escape(outcome.stopped)} "
            f"({roles.budget.describe() if roles.budget else ''}); no new request was sent, every finished "
            "attempt is saved (an attempt cut short writes nothing). "
            f"Resume with: {escape(resume_command(plan.batch_id))}",
            highlight=False,
            soft_wrap=True,
        )
        _print_preparation(getattr(outcome, "preparation", {}))
    if report:
        from cli.report_cmd import write_batch_report

        write_batch_report(store, [r.run_id for r in outcome.runs], out=out)
    return outcome


def _print_preparation(preparation: dict[str, Any]) -> None:
    """A batch stopped while preparing started no run, so no run record holds what preparing spent: say it."""
    from agents.runs.prep_usage import describe_preparation

    lines = describe_preparation(preparation)
    if not lines:
        return
    err_console.print(
        "spent preparing the batch before the limit stopped it (no run started, so this is in no run record; "
        "the pairs and summaries it finished are kept and not asked again):",
        highlight=False,
        soft_wrap=True,
    )
    for line in lines:
        err_console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)


def _announce_batch(
    plan: Any, options: Any, roles: Any, needed_roles: set[str], concurrency: int, executor: str
) -> None:
    """The batch's id and size, how to resume a fresh one, each role's context, and a concurrency the answerer's
    slots cap."""
    judge_kinds = options.judges
    console.print(
        f"batch [bold]{plan.batch_id}[/]: {len(plan.runs)} run(s) x {len(plan.item_ids)} item(s) of "
        f"{options.dataset}, judges: {', '.join(judge_kinds) or 'none'}, concurrency {concurrency}"
    )
    if options.fresh:
        resume_hint = resume_command(plan.batch_id)
        console.print(f"a new batch: continue it after a crash with {resume_hint}", highlight=False, markup=False,
                      soft_wrap=True)
    console.print(_context_line(roles, sorted(needed_roles | {"answerer"})), highlight=False, soft_wrap=True)
    answerer_slots = roles.settings["answerer"].concurrency
    if executor != "ray" and roles.configured("answerer") and concurrency > answerer_slots:
        console.print(
            f"note: --concurrency {concurrency} but the answerer role sends at most {answerer_slots} requests at "
            f"once (COLABENCH_LLM_CONCURRENCY or COLABENCH_LLM_ANSWERER_CONCURRENCY): the other attempts wait"
        )


def _open_claims(store: Any, worker: bool, worker_id: str | None, claim_ttl: float, executor: str) -> Any:
    """This process's claims when it shares the batch (--worker) or runs it on Ray; None otherwise."""
    if worker or executor == "ray":
        from agents.runs.claims import Claims

        claims = Claims(store, worker=worker_id, ttl_s=claim_ttl)
        if worker:
            console.print(f"worker {claims.worker}: claims expire {claim_ttl:g} s after their last renewal")
        return claims
    if worker_id:
        raise BadInputError("--worker-id names a worker: give it with --worker")
    return None


def _ray_executor(claims: Any, roles: Any, prompts: Any, concurrency: int, ray_address: str | None) -> Any:
    """The Ray executor: `concurrency` actors, each claiming its attempts (started when the attempts begin)."""
    from agents.runs.ray_executor import RayExecutor

    assert claims is not None
    ray_executor = RayExecutor(workers=concurrency, claims=claims, roles=roles, prompts=prompts, address=ray_address)
    console.print(
        f"Ray executor: {concurrency} actor(s) on {ray_address or 'a local Ray instance'} (started when the "
        f"attempts begin), workers {claims.worker}/ray1..{concurrency}, each claiming its attempts"
    )
    return ray_executor


def _execute(
    store: Any, retriever: Any, plan: Any, roles: Any, prompts: Any, concurrency: int, retry_failed: bool,
    claims: Any, ray_executor: Any,
) -> Any:
    """The batch under a progress bar per run; Ctrl-C says how to resume and exits; the retriever and the roles'
    clients are closed either way."""
    from agents.runs.runner import BatchInterrupted, execute_batch

    try:
        with progress_bar() as bar, ray_executor or nullcontext():
            return execute_batch(
                store,
                retriever,
                plan,
                roles,
                prompts,
                concurrency=concurrency,
                progress=_BarProgress(bar),
                retry_failed=retry_failed,
                claims=claims,
                executor=ray_executor,
            )
    except BatchInterrupted as stopped:
        _interrupted(stopped, resume_command(plan.batch_id))
    finally:
        retriever.close()
        roles.close()


def _warn_about_shape(store: Any, dataset: str) -> None:
    """One line on stderr, before any work, when the dataset's shape makes the run's analyses uninformative
    (fewer than 5 profiles with items: the intervals; no single- or no multi-fact items: that comparison)."""
    from graph.cypher_files import load_cypher
    from ingest.bundle.shape import ItemShape, shape_of, shape_warnings

    with store.driver.session(database=store.database) as session:
        rows = [r.data() for r in session.run(load_cypher("synthesis/items_shape"), dataset=dataset)]
    shape = shape_of(ItemShape(str(r["profile_id"]), r["batch"], int(r["n_facts"]), int(r["n_support"])) for r in rows)
    warnings = shape_warnings(shape)
    if warnings:
        err_console.print(
            f"[yellow]shape warning[/] ({dataset}): " + "; ".join(warnings), highlight=False, soft_wrap=True
        )


def _dry_run(
    store: Any, dataset: str, specs: Any, judge_kinds: tuple[str, ...], panel: tuple[str, ...], roles: Any,
    prompts: Any, items: int | None, item: list[str] | None, max_rounds: int, max_calls_per_round: int | None,
    judge_context_chars: int | None, fresh: bool, resume: str | None,
) -> None:
    """Plan the batch and print what it would send: reads the graph, sends nothing, writes nothing."""
    from agents.runs.dry_run import estimate_batch
    from agents.runs.plan import known_datasets, plan_batch
    from cli.dry_run_lines import print_dry_run

    known = known_datasets(store)
    if dataset not in known:
        listing = ", ".join(sorted(known)) or "none"
        raise BadInputError(
            f"--dry-run reads the dataset from the graph and {dataset!r} is not there (datasets: {listing}); "
            "ingest it first (`./colabench ingest PATH`)"
        )
    _warn_about_shape(store, dataset)
    options = _run_options(dataset, items, item, max_rounds, max_calls_per_round, judge_kinds, judge_context_chars,
                           panel, fresh, resume)
    plan = plan_batch(store, specs, options, roles, prompts, encoder_id=store.encoder.encoder_id)
    print_dry_run(estimate_batch(store, plan, roles, prompts))


def _interrupted(stopped: Any, resume: str) -> NoReturn:
    """Ctrl-C: say what was kept and how to resume, then exit without waiting for abandoned requests."""
    import os
    import sys

    abandoned = ""
    if stopped.abandoned:
        abandoned = f"; {stopped.abandoned} attempt(s) in flight abandoned (nothing of them written)"
    err_console.print(
        f"[yellow]interrupted[/]: no new requests sent{abandoned}; every finished attempt is saved. "
        f"Resume with: {escape(resume)}",
        highlight=False,
        soft_wrap=True,  # the command stays one line, to copy
    )
    sys.stdout.flush()
    sys.stderr.flush()
    if stopped.abandoned:
        os._exit(EXIT_INTERRUPTED)  # threads still waiting on the endpoint would delay a normal exit
    raise typer.Exit(EXIT_INTERRUPTED)


def _parse_judges(text: str) -> tuple[str, ...]:
    from agents.judging.registry import parse_judges

    return parse_judges(text)


def _context_line(roles: Any, needed: list[str]) -> str:
    """Each needed role's context size, known before the first request (a larger request is refused here)."""
    sizes = []
    for role in needed:
        if roles.configured(role):
            tokens = roles.client(role).context_tokens
            sizes.append(f"{role} {tokens:,} tokens" if tokens else f"{role} unknown (the server does not say)")
    return "context per slot: " + ", ".join(sizes)


def _print_costs(outcome: Any) -> None:
    """This invocation's cost per run (method) and role, and billed tokens per item; n/a without prices."""
    from agents.reports.costs import run_cost, usd_text

    for r in outcome.runs:
        cost = run_cost(getattr(r, "usage", None), int(r.counts.get("items", 0)))
        if not cost["by_role"]:
            continue
        roles = ", ".join(f"{role} {usd_text(c['cost_usd'])}" for role, c in cost["by_role"].items())
        per_item = cost["tokens_per_item"]
        console.print(
            f"cost of {r.method} (this invocation): {usd_text(cost['cost_usd'])} ({roles}); "
            f"{cost['tokens']:,} billed tokens" + ("" if per_item is None else f", {per_item:,.0f} per item"),
            highlight=False,
            soft_wrap=True,
        )


def _print_outcome(outcome: Any, cache: Path | None = None, resume: str = "the same command") -> None:
    table = Table(title=f"batch {outcome.batch_id}")
    for column in ("run", "status", "answered", "errors", "pass", "fail", "needs adj.", "complete"):
        table.add_column(column, justify="left" if column in ("run", "status") else "right")
    for r in outcome.runs:
        c = r.counts
        table.add_row(
            r.run_id,
            r.status,
            f"{c['answered']}/{c['items']}",
            str(c["errors"]),
            str(c["pass"]),
            str(c["fail"]),
            str(c["needs_adjudication"]),
            f"{c['complete']}/{c['items']}",
        )
    console.print(table)
    for note in outcome.notes:
        console.print(f"[yellow]note:[/] {note}")
    for warning in getattr(outcome, "warnings", []):
        console.print(f"[bold yellow]warning:[/] {warning}")
    by_role = getattr(outcome, "errors_by_role", {})
    if by_role:
        listing = ", ".join(f"{role} {n}" for role, n in sorted(by_role.items()))
        console.print(f"[red]endpoint errors[/] (this invocation, per role): {listing}")
        from agents.llm.error_text import ERROR_LINE_CHARS

        for failure in outcome.failures:
            if failure.get("error"):
                line = f"  {failure['role']} {failure['stage']}: {failure['error'][:ERROR_LINE_CHARS]}"
                console.print(line, highlight=False, markup=False)
    _print_costs(outcome)
    total = outcome.usage.get("total", {})
    cost = total.get("cost_usd")
    console.print(
        f"LLM: {total.get('calls', 0)} calls, {total.get('cache_hits', 0)} from cache, "
        f"{total.get('endpoint_requests', 0)} endpoint requests ({total.get('retries', 0)} retries), "
        f"{total.get('tokens_in', 0):,} tokens in / {total.get('tokens_out', 0):,} out, "
        + (f"estimated cost ${cost:.4f}" if cost is not None else "cost n/a (no prices: set \\[llm.prices])")
    )
    from agents.llm.traffic import traffic_lines

    for line in traffic_lines(outcome.usage):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    if total.get("calls", 0) and not total.get("endpoint_requests", 0):
        console.print(
            f"[yellow]note:[/] every reply came from the response cache ({cache}): nothing was sent to the "
            "endpoint, so neither it nor the model it serves was checked (COLABENCH_LLM_CACHE_MODE=refresh asks "
            "it again)",
            soft_wrap=True,  # a long cache path stays whole, never broken across lines
        )
    from agents.llm.served_model import mismatch_lines

    for line in mismatch_lines(outcome.usage):
        console.print(f"[bold yellow]warning:[/] {line}", highlight=False)
    if any(r.status != "finished" for r in outcome.runs):
        if getattr(outcome, "rerun_helps", True):
            console.print(
                f"[yellow]some attempts are unanswered or unjudged: resume with {escape(resume)}[/]",
                highlight=False,
                soft_wrap=True,
            )
        else:
            console.print(
                "[yellow]some attempts are unanswered or unjudged, and the endpoint refused some requests "
                "(HTTP 400/401/403/404): a rerun would be refused again. Fix the cause (model, context size, "
                f"key), then run {escape(resume)} --retry-failed[/]",
                highlight=False,
                soft_wrap=True,
            )
