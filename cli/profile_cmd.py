"""`colabench profile append FILE`: grow profiles with new sessions and turns, then update their memory."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from agents.memory.registry import memory_system_help
from cli.context import console, err_console, expected_errors, open_store
from cli.progress_lines import progress_bar

if TYPE_CHECKING:
    from query.retriever import Retriever

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True)


@app.command("append")
@expected_errors
def append(
    file: Path = typer.Argument(..., help="JSON (one record or a list) or JSONL (one record per line)"),
    memory_system: str = typer.Option(
        "raw_turns", help=f"memory system whose cards and links are updated ({memory_system_help()})",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="validate the file and stop"),
) -> None:
    """Append sessions (records with profile_id) and turns (records with only session_id) as events, then update
    memory cards and document links for the new turns. Idempotent: rerun after a crash to resume."""
    from api.errors import ApiError
    from api.growth.append import ProfileGrowth
    from api.growth.file_format import read_append_file
    from api.growth.models import SessionAppend

    records = read_append_file(file)
    sessions = sum(isinstance(r.request, SessionAppend) for r in records)
    turns = sum(len(r.request.turns) for r in records)
    console.print(f"validated {file}: {len(records)} record(s), {sessions} new session(s), {turns} turn(s)")
    if dry_run:
        return
    table = Table(title="profile append")
    for column in ("record", "session", "new turns", "skipped", "memory"):
        table.add_column(column)
    with open_store() as store, progress_bar() as bar:

        @cache
        def retriever() -> Retriever:
            from query.retriever import Retriever

            assert store.encoder is not None
            return Retriever(store.driver, store.encoder, store.database)

        growth = ProfileGrowth(store, actor="cli:profile-append", memory_system=memory_system, retriever=retriever)
        task = bar.add_task("appending", total=len(records))
        for located in records:
            try:
                outcome = growth.append(located.request)
            except ApiError as exc:
                bar.stop()
                err_console.print(f"[bold red]error:[/] {located.where}: {exc}", markup=True, soft_wrap=True)
                err_console.print("records before this one were appended; fix it and run the same command again")
                sys.exit(1)
            memory = json.dumps(outcome.memory_counts) if outcome.memory_counts is not None else outcome.memory_note
            table.add_row(
                located.where,
                outcome.session_id,
                str(len(outcome.appended_turn_ids)),
                str(len(outcome.turn_ids) - len(outcome.appended_turn_ids)),
                memory or "",
            )
            for warning in outcome.warnings:
                err_console.print(f"[yellow]warning:[/] {located.where}: {warning}")
            bar.advance(task)
        head = store.head().seq
    console.print(table)
    console.print(f"log head seq {head}")


@app.command("schema")
def schema() -> None:
    """Print the JSON Schema of the records `profile append` reads."""
    from api.growth.models import growth_json_schema

    print(json.dumps(growth_json_schema(), indent=2))
