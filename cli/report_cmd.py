"""`colabench report`: HTML, JSON and Markdown reports of evaluation runs, computed from the graph (no LLM)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from cli.context import console, expected_errors, open_store
from graph.errors import BadInputError, UsageError


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def write_batch_report(store: Any, run_ids: list[str], *, out: Path | None = None, traces: bool = True) -> Path:
    """Build the report of these runs from the graph and write it; prints and returns the HTML path."""
    from agents.reports.data import build_report_data
    from agents.reports.write import reports_dir, write_report

    with console.status("computing metrics and bootstrap intervals ..."):
        data = build_report_data(store.driver, store.database, run_ids, traces=traces)
    folder = out or reports_dir() / "_".join(data["batch_ids"])
    path = write_report(data, folder)
    _print_summary(data)
    console.print(f"report: {path}")
    return path


def _print_summary(data: dict[str, Any]) -> None:
    table = Table(title=data["title"])
    for column in ("method", "accuracy", "adjudicated", "pending", "Read Recall", "first-search hit", "search hit",
                   "avg turns"):
        table.add_column(column, justify="left" if column == "method" else "right")

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v * 100:.2f}%"

    for run in data["runs"]:
        m = run["metrics"]
        table.add_row(
            run["label"],
            f"{pct(m['accuracy'])} ({m['n_pass']}/{m['n_items']})",
            pct(m.get("accuracy_adjudicated")),
            str(m.get("n_pending", 0)),
            pct(m["read_recall"]),
            pct(m["first_search_hit_rate"]),
            pct(m["search_hit_rate"]),
            "n/a" if m["avg_turns"] is None else f"{m['avg_turns']:.2f}",
        )
    console.print(table)
    from agents.reports.headline import headline_lines

    for line in headline_lines(data):
        console.print(f"[bold]headline:[/] {line}")
    for note in data["notes"]:
        console.print(f"[yellow]note:[/] {note}")


def run_retrieval_only(
    store: Any, dataset: str, specs: list[Any], *, items: int | None, item_ids: list[str], out: Path | None
) -> Path:
    """The no-LLM path of `run`: the retrieval line of the methods' recipes on the dataset, as a report
    labelled retrieval-only."""
    from agents.reports.retrieval_only import build_retrieval_report, retrieval_folder_name
    from agents.reports.write import reports_dir, write_report

    data = build_retrieval_report(store, dataset, specs, items=items, item_ids=item_ids, console=console)
    from agents.retrieval_eval.report import EvalReport
    from cli.eval_cmd import print_report

    print_report(EvalReport.model_validate(data["evaluation"]))
    name = retrieval_folder_name(data["evaluation"]["dataset"], [s.name for s in specs], items)
    folder = out or reports_dir() / name
    path = write_report(data, folder)
    console.print(f"retrieval-only report: {path}")
    return path


@expected_errors
def report(
    run_ids: list[str] = typer.Argument(
        None,
        help="run ids (gains: each run minus No Memory + Hybrid when it is one of them, else the first minus each "
        "other)",
    ),
    latest: bool = typer.Option(False, "--latest", help="the most recent batch (or retrieval-only report)"),
    batch: str = typer.Option(None, "--batch", help="every run of this batch"),
    list_runs: bool = typer.Option(False, "--list", help="list the runs in the graph and stop"),
    out: Path = typer.Option(None, help="report folder (default .data/reports/<batch>)"),
    traces: bool = typer.Option(True, "--traces/--no-traces", help="include per-item evidence traces"),
) -> None:
    """Write the report (report.html, report.json, report.md) of runs: metrics, paired gains with cluster-
    bootstrap intervals, charts, the evidence funnel and every item's evidence trace. No LLM is called."""
    from agents.reports.write import read_latest
    from graph.cypher_files import load_cypher

    chosen = sum(bool(x) for x in (run_ids, latest, batch, list_runs))
    if chosen != 1:
        raise BadInputError("give run ids, or exactly one of --latest, --batch ID, --list")
    with open_store(with_encoder=False, check_schema=False) as store:
        with store.driver.session(database=store.database) as session:
            runs = [dict(r) for r in session.run(load_cypher("agents/runs_list"))]
        if list_runs:
            table = Table(title="runs (newest first)")
            for column in ("run", "batch", "method", "dataset", "status", "items", "answered", "errors", "pass"):
                table.add_column(column)
            for r in runs:
                table.add_row(
                    r["run_id"], r["batch_id"], r["method"], r["dataset"], r["status"], str(r["n_items"]),
                    str(r["n_answered"]),
                    _errors_cell(r),
                    str(r["n_pass"]),
                )
            console.print(table)
            return
        known = {r["run_id"] for r in runs}
        if latest:
            pointer = read_latest()
            # The pointer names whatever report was written last: a retrieval-only one is shown as it is, or
            # rendered again from its report.json into --out.
            if pointer and pointer.get("kind") == "retrieval" and Path(pointer["path"]).is_dir():
                console.print(f"retrieval-only report: {copy_retrieval_report(Path(pointer['path']), out)}")
                return
            if pointer and pointer.get("kind") == "evaluation" and set(pointer.get("run_ids", [])) <= known:
                run_ids = list(pointer["run_ids"])
            elif runs:
                batch = runs[0]["batch_id"]
            else:
                raise UsageError("no runs and no report yet: run `./colabench run` first")
        if batch:
            with store.driver.session(database=store.database) as session:
                run_ids = [r["run_id"] for r in session.run(load_cypher("agents/batch_runs"), batch_id=batch)]
            if not run_ids:
                raise BadInputError(f"no runs in batch {batch!r}; `./colabench report --list` shows the batches")
        missing = [r for r in run_ids if r not in known]
        if missing:
            raise BadInputError(f"unknown run id(s) {missing}; `./colabench report --list` shows the runs")
        write_batch_report(store, list(run_ids), out=out, traces=traces)


def copy_retrieval_report(folder: Path, out: Path | None) -> Path:
    """The HTML path of the retrieval-only report in `folder`, or of its pages written again into `out`
    (from its report.json, so the copy is rendered by this version of colabench)."""
    if out is None or out.resolve() == folder.resolve():
        return folder / "report.html"
    import json

    from agents.reports.write import check_report_version, write_report

    source = folder / "report.json"
    try:
        data = json.loads(source.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{source}: the latest retrieval-only report cannot be read ({exc}); run it again") from exc
    check_report_version(data, str(source))
    return write_report(data, out)


def _errors_cell(run: dict[str, Any]) -> str:
    """Attempts in error, and the run's endpoint failures (answerer, judge, prerequisites) when there are any."""
    failures = run.get("n_endpoint_failures") or 0
    return f"{run['n_errors']}" + (f" ({failures} endpoint)" if failures else "")
