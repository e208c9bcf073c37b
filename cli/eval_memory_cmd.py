"""`colabench eval memory`: memory-quality evaluation of one memory system on a dataset's profiles (HaluMem's
axes): the no-LLM coverage from the graph, then the memory judges (integrity, accuracy, update, qa) when the
`judge` role has an endpoint, and a report of kind `memory_quality`."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from agents.memory.registry import memory_system_help
from cli.context import console, err_console, expected_errors, open_store
from cli.endpoint_check import check_endpoints, endpoint_check_option
from cli.exit_codes import EXIT_ENDPOINT_OR_PARTIAL
from cli.progress_lines import progress_bar
from graph.errors import BadInputError, UsageError

if TYPE_CHECKING:
    from agents.judging.memory_base import MemoryJudge
    from agents.llm.roles import LLMRoles
    from agents.memory_quality.coverage import Coverage
    from agents.prompts.registry import PromptSet
    from graph.store import EventStore

EXIT_JUDGE_FAILURES = EXIT_ENDPOINT_OR_PARTIAL


def register(app: typer.Typer) -> None:
    app.command("memory")(memory)


class PlainProgress:
    """Progress as plain lines (every `every` seconds, and at the end) when stderr is not a terminal."""

    def __init__(self, label: str, every: float = 10.0) -> None:
        self.label, self.every, self.last = label, every, 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - self.last >= self.every:
            self.last = now
            print(f"{self.label}: {done}/{total}", file=sys.stderr, flush=True)


def _resolve_profiles(store: Any, dataset: str, wanted: list[str]) -> tuple[str, list[str]]:
    from agents.memory_quality.points import dataset_profiles, profile_datasets

    known = profile_datasets(store.driver, store.database)
    if dataset not in known:
        from cli.run_cmd import _resolve_dataset

        dataset = _resolve_dataset(store, dataset)  # `sample` or a path: ingested when missing
    profiles = dataset_profiles(store.driver, store.database, dataset)
    if wanted:
        unknown = [p for p in wanted if p not in profiles]
        if unknown:
            raise BadInputError(
                f"profile(s) {unknown} are not profiles of dataset {dataset!r} ({len(profiles)} profiles)"
            )
        profiles = [p for p in profiles if p in set(wanted)]
    if not profiles:
        raise UsageError(f"dataset {dataset!r} has no profiles")
    return dataset, profiles


@expected_errors
def memory(
    system: str = typer.Option(..., "--system", help=memory_system_help()),
    dataset: str = typer.Option("sample", "--dataset", help="a dataset name in the graph, a path, or `sample`"),
    profiles: list[str] = typer.Option(None, "--profiles", "--profile", help="only these profiles (repeatable)"),
    judges: str = typer.Option("all", "--judges", help="integrity,accuracy,update,qa (comma-separated), all, or none"),
    max_memories: int = typer.Option(60, "--max-memories", min=1, help="memories a judge sees per point at most"),
    qa_k: int = typer.Option(10, "--qa-k", min=1, help="qa: memories retrieved per question (nearest by cosine)"),
    concurrency: int = typer.Option(4, "--concurrency", min=1, max=64, help="judge requests in flight"),
    prompt: list[str] = typer.Option(None, "--prompt", help="NAME=PATH[@SHA256]: use a prompt file (repeatable)"),
    out: Path = typer.Option(None, "--out", help="report folder (default .data/reports/memory-<system>-<dataset>)"),
    no_endpoint_check: bool = endpoint_check_option(),
) -> None:
    """Evaluate what a memory system kept of each profile's disclosed facts. No LLM: which facts have a memory
    derived from their disclosing turn, memories derived from no disclosing turn, memories per turn, per fact
    kind. With the `judge` role: integrity (0/1/2 per expected point), accuracy (0/1/2 per memory, and whether
    it is in the gold facts), update, qa (each question of the profile answered from the `--qa-k` nearest
    memories, then correct / hallucination / omission against its reference answer), each verdict a
    MemoryJudged event; "all" and "valid" denominators. Resumable (verdicts already recorded are not asked
    again). Memories come from `./colabench memory build`."""
    from agents.judging.registry import parse_memory_judges
    from agents.llm.roles import LLMRoles
    from agents.memory.registry import get_memory_system
    from agents.memory_quality.report import build_memory_quality_data
    from agents.prompts.registry import PromptSet
    from agents.reports.write import reports_dir, write_report

    chosen = parse_memory_judges(judges)
    name = get_memory_system(system).name
    prompts = PromptSet.from_config(prompt or [])
    roles = LLMRoles()
    try:
        if chosen:
            check_endpoints(roles, ["judge"], not no_endpoint_check)
        with open_store() as store:
            dataset_name, profile_ids = _resolve_profiles(store, dataset, list(profiles or []))
            coverage = _coverage(store, name, dataset_name, profile_ids)
            notes = _coverage_notes(store, name, coverage, chosen, profile_ids)
            judged, failures = _judge_memories(
                store, name, profile_ids, chosen, roles, prompts, max_memories, qa_k, concurrency, notes
            )
            data = build_memory_quality_data(
                store.driver, store.database, name, dataset_name, profile_ids, judged=judged, notes=notes
            )
    finally:
        roles.close()
    _print_tables(data)
    for note in data["notes"]:
        console.print(f"[yellow]note:[/] {note}")
    folder = out or reports_dir() / f"memory-{name}-{dataset_name}"
    console.print(f"memory-quality report: {write_report(data, folder)}")
    if failures:
        raise typer.Exit(EXIT_JUDGE_FAILURES)


def _coverage(store: EventStore, name: str, dataset_name: str, profile_ids: list[str]) -> Coverage:
    """The system's no-LLM coverage of these profiles, printed; UsageError when it holds no memory of them."""
    from agents.memory_quality.coverage import compute_coverage

    coverage = compute_coverage(store.driver, store.database, name, profile_ids)
    if coverage.n_memories == 0:
        raise UsageError(
            f"memory system {name!r} has no memories for the {len(profile_ids)} profile(s) of "
            f"{dataset_name!r}: build them first with `./colabench memory build --system {name}`"
        )
    _print_coverage(coverage)
    return coverage


def _coverage_notes(
    store: EventStore, name: str, coverage: Coverage, chosen: list[MemoryJudge], profile_ids: list[str]
) -> list[str]:
    """Notes on what the judges will not see: profiles without memories, and no update points or questions for
    the chosen judges of those axes."""
    from agents.memory_quality.questions import load_questions

    notes: list[str] = []
    if coverage.profiles_without_memories:
        notes.append(
            f"{len(coverage.profiles_without_memories)} profile(s) have no {name} memories (their points "
            f"count as not remembered): {', '.join(coverage.profiles_without_memories[:10])}"
        )
    if coverage.n_update_points == 0 and any(j.axis == "update" for j in chosen):
        notes.append(
            "no update points: no fact of these profiles names a fact it supersedes (metadata "
            "`supersedes`), so the update judge had nothing to judge"
        )
    if any(j.axis == "qa" for j in chosen) and not load_questions(store.driver, store.database, profile_ids):
        notes.append(
            "no questions: no item of these profiles has a reference answer, so the qa judge had nothing to judge"
        )
    return notes


def _judge_memories(
    store: EventStore,
    name: str,
    profile_ids: list[str],
    chosen: list[MemoryJudge],
    roles: LLMRoles,
    prompts: PromptSet,
    max_memories: int,
    qa_k: int,
    concurrency: int,
    notes: list[str],
) -> tuple[dict[str, Any] | None, int]:
    """Run the chosen memory judges when the `judge` role has an endpoint (else say why not); what they judged
    (None without judges or an endpoint) and the targets endpoint errors left unjudged (noted in `notes`)."""
    from agents.memory_quality.pipeline import run_memory_judges
    from agents.memory_quality.report import NEEDS_LLM_NOTE

    if chosen and not roles.configured("judge"):
        err_console.print(f"[yellow]no LLM configured[/]: {NEEDS_LLM_NOTE}")
        return None, 0
    if not chosen:
        return None, 0
    llm = roles.client("judge")
    outcome = run_memory_judges(
        store,
        name,
        profile_ids,
        chosen,
        llm,
        prompts,
        max_memories=max_memories,
        qa_k=qa_k,
        concurrency=concurrency,
        progress=_progress("memory judges"),
    )
    judged = {
        **outcome.as_dict(),
        "judge": roles.public_records(["judge"])["judge"],
        "prompts": prompts.records([n for j in chosen for n in j.prompt_names()]),
    }
    failures = sum(outcome.failed.values())
    if failures:
        notes.append(
            f"{failures} target(s) left unjudged by endpoint errors (rerun to judge them); latest: "
            f"{' '.join(str(outcome.last_error).split())[:300]}"
        )
    return judged, failures


def _progress(label: str) -> Callable[[int, int], None]:
    if not sys.stderr.isatty():
        return PlainProgress(label)
    bar = progress_bar()
    task = bar.add_task(label, total=None)
    bar.start()

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)
        if done >= total:
            bar.stop()

    return update


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _print_coverage(c: Any) -> None:
    table = Table(title=f"{c.system}: no-LLM coverage over {c.n_profiles} profile(s) ({c.seconds:.2f} s)")
    for column in ("fact kind", "facts", "expected points", "remembered", "recall", "memories"):
        table.add_column(column, justify="left" if column == "fact kind" else "right")
    for k in c.per_kind:
        table.add_row(k.kind, str(k.n_facts), str(k.n_points), str(k.n_remembered), _pct(k.recall), str(k.n_memories))
    table.add_row(
        "all", str(c.n_facts), str(c.n_points), str(c.n_remembered), _pct(c.recall), str(c.n_memories), end_section=True
    )
    console.print(table)
    mean = c.turns.mean_per_user_turn
    console.print(
        f"memories: {c.n_memories}, derived from no disclosing turn: {c.n_unanchored} "
        f"({_pct(c.unanchored_share)}); per user turn: {'n/a' if mean is None else f'{mean:.2f}'} "
        f"(max {c.turns.max_per_turn} on one turn); update points: {c.n_update_points}"
    )


def _print_tables(data: dict[str, Any]) -> None:
    from agents.memory_quality.report import axis_cells, axis_header

    for system in data["systems"]:
        for t in system["tables"]:
            table = Table(title=f"{system['system']}: {t['axis']} (judge {', '.join(t['judge_models'])})")
            for h in axis_header(t["axis"]):
                table.add_column(h, justify="left" if h == "kind" else "right")
            for r in t["rows"]:
                table.add_row(*axis_cells(t["axis"], r))
            console.print(table)
