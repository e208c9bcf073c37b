"""`colabench events verify|export|import`."""

from __future__ import annotations

from pathlib import Path

import typer

from cli.context import console, err_console, expected_errors, open_store
from cli.progress_lines import progress_bar
from graph.integrity import verify_chain
from graph.transfer import export_log, import_log, log_file_version

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True)


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


@app.command("fields")
@expected_errors
def fields(
    event_type: str = typer.Argument(None, help="one event type (e.g. TurnAppended); all when left out"),
) -> None:
    """Print, as JSON, the payload fields each event type declares: per field its JSON schema, whether every
    payload carries it, and the value at which it is left out (fields added later). `events export` lines carry
    these fields in `payload`."""
    import json

    from graph.errors import BadInputError
    from graph.events import event_fields

    catalogue = event_fields()
    if event_type is not None:
        if event_type not in catalogue:
            raise BadInputError(f"unknown event type {event_type!r}; known: {', '.join(catalogue)}")
        catalogue = {event_type: catalogue[event_type]}
    print(json.dumps(catalogue, indent=2, sort_keys=True, ensure_ascii=False))


@app.command("export")
@expected_errors
def export_(path: Path = typer.Argument(..., help="JSONL file to write")) -> None:
    """Write the whole log, in seq order, to a JSONL file, and the LLM exchange store its events reference
    beside it (`PATH.exchanges.jsonl`)."""
    from agents.llm.exchanges import ExchangeStore, exchanges_file, export_exchanges
    from agents.llm.settings import LLMGlobalSettings

    with open_store(with_encoder=False, check_schema=False) as store, progress_bar() as bar:
        task = bar.add_task("exporting", total=store.head().seq)
        count = export_log(store, path, progress=lambda n: bar.advance(task, n))
    console.print(f"exported {count:,} events to {path}")
    source = LLMGlobalSettings().exchanges_path
    if source.exists():
        exchanges = ExchangeStore(source)
        try:
            rows = export_exchanges(exchanges, exchanges_file(path))
        finally:
            exchanges.close()
        console.print(f"exported {rows:,} LLM exchange rows (parts and exchanges) to {exchanges_file(path)}")
    else:
        console.print(f"no LLM exchange store at {source}: no exchanges exported")


@app.command("import")
@expected_errors
def import_(path: Path = typer.Argument(..., help="JSONL file written by `events export`")) -> None:
    """Import a log into this database (empty, or holding a prefix of it) and project it, and the LLM exchanges
    exported beside it (`PATH.exchanges.jsonl`, when present) into this data directory's exchange store. The
    exchanges are checked first: a bad row stops the command before any event is imported. A log or exchanges
    file written by a newer colabench (a newer format version) is refused before anything is imported."""
    from agents.llm.exchanges import ExchangeStore, exchanges_file, exchanges_file_version, import_exchanges
    from agents.llm.settings import LLMGlobalSettings

    beside = exchanges_file(path)
    log_file_version(path)
    if beside.exists():
        exchanges_file_version(beside)
    exchanges = ExchangeStore(LLMGlobalSettings().exchanges_path) if beside.exists() else None
    try:
        added = import_exchanges(exchanges, beside) if exchanges is not None else None
        with open_store() as store, progress_bar() as bar:
            task = bar.add_task("importing", total=None)
            imported, present = import_log(store, path, progress=lambda n: bar.advance(task, n))
    finally:
        if exchanges is not None:
            exchanges.close()
    console.print(f"imported {imported:,} events ({present:,} were already present)")
    if added is not None:
        console.print(f"imported {added:,} new LLM exchange rows from {beside}")
