"""`colabench events verify|export|import`."""

from __future__ import annotations

from pathlib import Path

import typer

from cli.context import console, err_console, expected_errors, open_store, progress_bar
from graph.integrity import verify_chain
from graph.transfer import export_log, import_log

app = typer.Typer(no_args_is_help=True)


@app.command()
@expected_errors
def verify() -> None:
    """Walk the hash chain; report the first broken link (exit 1) or confirm the log is intact."""
    with open_store(with_encoder=False, check_schema=False) as store:
        head = store.head()
        with progress_bar() as bar:
            task = bar.add_task("verifying", total=head.seq)
            report = verify_chain(store.read(), progress=lambda n: bar.advance(task, n), expected_head=head.hash)
    if report.ok:
        console.print(f"[green]ok[/]: {report.checked:,} events, chain intact, head {head.hash}")
    else:
        err_console.print(
            f"[red]broken at seq {report.first_broken_seq}[/]: {report.problem} "
            f"({report.checked:,} events verified before it)"
        )
        raise typer.Exit(1)


@app.command("export")
@expected_errors
def export_(path: Path = typer.Argument(..., help="JSONL file to write")) -> None:
    """Write the whole log, in seq order, to a JSONL file."""
    with open_store(with_encoder=False, check_schema=False) as store, progress_bar() as bar:
        task = bar.add_task("exporting", total=store.head().seq)
        count = export_log(store, path, progress=lambda n: bar.advance(task, n))
    console.print(f"exported {count:,} events to {path}")


@app.command("import")
@expected_errors
def import_(path: Path = typer.Argument(..., help="JSONL file written by `events export`")) -> None:
    """Import a log into this database (empty, or holding a prefix of it) and project it."""
    with open_store() as store, progress_bar() as bar:
        task = bar.add_task("importing", total=None)
        imported, present = import_log(store, path, progress=lambda n: bar.advance(task, n))
    console.print(f"imported {imported:,} events ({present:,} were already present)")
