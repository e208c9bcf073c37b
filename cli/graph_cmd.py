"""`colabench graph summary|fingerprint|rebuild|reset|gold-leaks`."""

from __future__ import annotations

import typer
from rich.table import Table

from cli.context import console, err_console, expected_errors, open_store
from cli.progress_lines import progress_bar
from graph.cypher_files import load_cypher
from graph.fingerprint import compute_fingerprint
from graph.replay import drop_projection, replay

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True)


@app.command()
@expected_errors
def summary() -> None:
    """Counts per label and relationship type, the event count and the log head."""
    with open_store(with_encoder=False, check_schema=False) as store:
        with store.driver.session(database=store.database) as session:
            labels = [(r["label"], r["n"]) for r in session.run(load_cypher("admin/count_labels"))]
            rels = [(r["type"], r["n"]) for r in session.run(load_cypher("admin/count_relationships"))]
        head = store.head()
        by_type = store.count_by_type()
    table = Table(title="evidence graph")
    table.add_column("label / relationship")
    table.add_column("count", justify="right")
    for name, n in labels:
        if name not in ("Event", "LogHead", "ProjectionMeta"):
            table.add_row(f":{name}", f"{n:,}")
    for name, n in rels:
        table.add_row(f"[{name}]", f"{n:,}")
    console.print(table)
    console.print(f"events: {sum(by_type.values()):,} ({', '.join(f'{k} {v:,}' for k, v in by_type.items())})")
    console.print(f"log head: seq {head.seq}, hash {head.hash}")


@app.command()
@expected_errors
def fingerprint() -> None:
    """Print the projection fingerprint (a hash over every projected node and relationship)."""
    with open_store(with_encoder=False, check_schema=False) as store:
        fp = compute_fingerprint(store.driver, store.database)
    console.print(f"{fp.digest}  ({fp.nodes:,} nodes, {fp.relationships:,} relationships)")


@app.command()
@expected_errors
def rebuild(
    check: bool = typer.Option(False, "--check", help="fail if the rebuilt projection differs"),
    page_size: int = typer.Option(5000, help="events per replay transaction"),
) -> None:
    """Drop the projection and replay the whole log (re-embedding only what the cache lacks)."""
    with open_store(check_schema=False) as store:
        before = compute_fingerprint(store.driver, store.database) if check else None
        total = store.head().seq
        drop_projection(store)
        with progress_bar() as bar:
            task = bar.add_task("replaying events", total=total)
            index_task = bar.add_task("populating search indexes", total=None, visible=False, start=False)

            def show_indexing() -> None:
                bar.start_task(index_task)
                bar.update(index_task, visible=True)

            result = replay(
                store,
                page_size=page_size,
                progress=lambda n: bar.advance(task, n),
                on_indexing=show_indexing,
            )
            bar.update(index_task, total=1, completed=1)
        rate = result.events / result.seconds if result.seconds else 0.0
        console.print(f"replayed {result.events:,} events in {result.seconds:.1f} s ({rate:,.0f} events/s)")
        if before is not None:
            after = compute_fingerprint(store.driver, store.database)
            if after.digest != before.digest:
                err_console.print("[red]projection differs after rebuild:[/] " + "; ".join(before.differences(after)))
                raise typer.Exit(1)
            console.print(f"[green]fingerprint unchanged[/]: {after.digest}")


@app.command()
@expected_errors
def reset(yes: bool = typer.Option(False, "--yes", help="confirm: delete the log and the projection")) -> None:
    """Delete everything in the database (log included)."""
    if not yes:
        err_console.print("refusing without --yes: this deletes the event log and the whole graph")
        raise typer.Exit(2)
    with (
        open_store(with_encoder=False, check_schema=False) as store,
        store.driver.session(database=store.database) as session,
    ):
        session.run(load_cypher("admin/delete_everything")).consume()
    console.print("database emptied")


@app.command("gold-leaks")
@expected_errors
def gold_leaks(
    dataset: str = typer.Option(None, "--dataset", help="check the items of this dataset only (default: all)"),
) -> None:
    """Flag items whose reference answer or requirement text appears verbatim in a turn visible to them
    (the answering agent's history cut-off). Prints ids only, never the gold; exits 1 on any finding."""
    from agents.gold_leaks import find_gold_leaks

    with open_store(with_encoder=False, check_schema=False) as store:
        report = find_gold_leaks(store, dataset)
    for leak in report.leaks[:200]:
        where = "declared cut-off turn not in the profile" if leak.kind == "cutoff_unknown" else "visible turn"
        console.print(f"{leak.item_id}: {leak.kind} {leak.gold_id} in {where} {leak.turn_id}", markup=False)
    if len(report.leaks) > 200:
        console.print(f"... {len(report.leaks) - 200} more")
    summary = (
        f"{report.items_checked:,} item(s) checked, {report.items_with_cutoff:,} with a history cut-off, "
        f"{report.quoted_evidence:,} answer(s) quoted from a turn their requirements cite (not leaks)"
    )
    if report.leaks:
        found = f"{report.leaking_items:,} item(s) see their own gold[/] ({len(report.leaks):,} finding(s))"
        console.print(f"[red]{found}; {summary}")
        raise typer.Exit(1)
    console.print(f"[green]no gold in visible history[/]: {summary}")
