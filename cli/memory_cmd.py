"""`colabench memory build`: raw-turn memory cards and their document links."""

from __future__ import annotations

import typer
from rich.table import Table

from cli.context import console, expected_errors, open_store, progress_bar
from cli.query_cmd import corpus_from_options
from query.memory import build_document_links, build_raw_turn_cards
from query.memory.raw_turns import SYSTEM as RAW_TURNS
from query.retriever import Retriever

app = typer.Typer(no_args_is_help=True)


@app.command()
@expected_errors
def build(
    system: str = typer.Option(RAW_TURNS, "--system", help="memory system whose cards to build / link"),
    profile: str = typer.Option(None, "--profile", help="only this profile (default: every profile)"),
    links: bool = typer.Option(True, "--links/--no-links", help="also link cards to documents (MemKB)"),
    source: list[str] = typer.Option(None, "--source", help="link only to documents of this source (repeatable)"),
    prefix: list[str] = typer.Option(None, "--prefix", help="link only to documents whose id starts so"),
) -> None:
    """Build cards for user turns that have none (system raw_turns), then link cards that lack links or whose
    links are stale. Resumable: rerun after an interruption."""
    counts: dict[str, int] = {}
    with open_store() as store, progress_bar() as bar:
        assert store.encoder is not None
        if system == RAW_TURNS:
            task = bar.add_task("memory cards", total=None)
            counts.update(
                build_raw_turn_cards(
                    store, profile, progress=lambda done, total: bar.update(task, completed=done, total=total)
                )
            )
        elif not links:
            console.print(f"[yellow]note:[/] system {system!r} writes its own cards; nothing to do without --links")
        if links:
            retriever = Retriever(store.driver, store.encoder, store.database)
            task = bar.add_task("document links", total=None)
            try:
                counts.update(
                    build_document_links(
                        store,
                        retriever,
                        system,
                        profile,
                        corpus=corpus_from_options(source, prefix),
                        progress=lambda done, total: bar.update(task, completed=done, total=total),
                    )
                )
            finally:
                retriever.close()
    table = Table(title=f"memory build ({system})")
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, value in counts.items():
        table.add_row(name.replace("_", " "), f"{value:,}")
    console.print(table)
