"""`colabench ingest PATH`, `colabench check PATH`, `colabench schema`."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from cli.context import console, expected_errors, open_store
from cli.progress_lines import progress_bar
from cli.ray_options import check_executor, ray_address_option
from ingest.pipeline import FORMATS, load_input, write_events

SAMPLE_BUNDLE = Path(__file__).resolve().parents[1] / "samples" / "colabench-sample"


def resolve_dataset_path(path: str) -> Path:
    """`sample` and `synth-sample` name the bundled samples (ingest/bundled.py); anything else is a path."""
    from ingest.bundled import bundled_path

    return bundled_path(path) or Path(path)


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest)
    app.command("check")(check)
    app.command("schema")(schema)


@expected_errors
def ingest(
    path: str = typer.Argument(..., help="input file or folder, or `sample` / `synth-sample` for a bundled sample"),
    fmt: str = typer.Option(None, "--format", help="|".join(FORMATS) + " (detected when omitted)"),
    batch_size: int = typer.Option(2000, help="events per transaction"),
    executor: str = typer.Option(
        "local", "--executor", metavar="local|ray",
        help="where texts the embedding cache lacks are embedded: this process, or Ray actors (an optional "
        "extra: COLABENCH_RAY=1 ./colabench ingest ...)",
    ),
    workers: int = typer.Option(
        2, "--workers", min=1, max=256, help="with --executor ray: the embedding actors"
    ),
    ray_address: str = ray_address_option(),
    locomo_caption: str = typer.Option(
        None, "--locomo-caption", metavar="bare|bracketed",
        help="LoCoMo only: how an image turn's caption joins its text, \"<text> <caption>\" (bare, the default) "
        "or \"<text> [image: <caption>]\" (bracketed)",
    ),
) -> None:
    """Validate an input completely, then append it to the event log (resumable: rerun after a crash)."""
    from contextlib import ExitStack

    from graph.embeddings.cached import CachedEncoder

    check_executor(executor, ray_address, "local")
    source = resolve_dataset_path(path)
    with console.status(f"reading and validating {source} ..."):
        import time

        started = time.perf_counter()
        result = load_input(source, fmt, locomo_caption)
        parse_seconds = time.perf_counter() - started
    console.print(f"validated {source}: {len(result.events)} events for dataset [bold]{result.dataset}[/]")
    if "locomo_caption" in result.settings:
        console.print(f"LoCoMo image turns: caption format {result.settings['locomo_caption']}")
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {warning}")
    with open_store(warn_incomplete=False) as store, ExitStack() as stack, progress_bar() as bar:
        if executor == "ray" and isinstance(store.encoder, CachedEncoder):
            from graph.embeddings.ray_encoder import RayEncoder

            # The same embedding cache (its open file), with the cache misses sent to the actors.
            ray_encoder = stack.enter_context(RayEncoder(workers=workers, address=ray_address))
            store.encoder = CachedEncoder(ray_encoder, store.encoder.cache)
            console.print(
                f"embedding on Ray: {workers} actor(s) "
                + (f"on the cluster at {ray_address}" if ray_address else "on a local Ray instance")
                + " (texts already in the embedding cache are not sent)"
            )
        task = bar.add_task("appending events", total=None)

        def on_progress(_phase: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        report = write_events(store, result, batch_size=batch_size, progress=on_progress)
        if executor == "ray" and isinstance(store.encoder, CachedEncoder):
            shares = ray_encoder.texts_per_actor
            console.print(
                f"Ray actors embedded {sum(shares):,} text(s)"
                + (f"; per actor: {', '.join(f'{n:,}' for n in shares)}" if shares else ": all were in the cache")
            )
    report.seconds["parse"] = parse_seconds
    table = Table(title=f"ingested {result.dataset}", show_header=True)
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, value in report.counts.items():
        table.add_row(name, f"{value:,}")
    table.add_row("events appended", f"{report.appended:,}")
    table.add_row("events already in the log (skipped)", f"{report.skipped:,}")
    console.print(table)
    timing = ", ".join(f"{k} {v:.1f} s" for k, v in report.seconds.items())
    console.print(f"time: {timing}; log head seq {report.head_seq}, hash {report.head_hash[:16]}")


@expected_errors
def check(
    path: str = typer.Argument(..., help="a ColaBench bundle (folder or .tar.gz), or `sample` / `synth-sample`"),
) -> None:
    """Validate a bundle and every cross-reference without writing anything (the validator `ingest` runs)."""
    from ingest.validation import validate_bundle

    bundle, report, _events = validate_bundle(resolve_dataset_path(path))
    for problem in report.problems[:200]:
        console.print(str(problem), markup=False)
    for warning in report.warnings:
        console.print(f"[yellow]warning[/]: {warning}")
    summary = ", ".join(f"{k} {v}" for k, v in report.counts.items())
    if report.ok:
        console.print(f"[green]ok[/]: {bundle.name}: {summary}")
    else:
        console.print(f"[red]{len(report.problems)} problem(s)[/] in {bundle.name}: {summary}")
        raise typer.Exit(2)


@expected_errors
def schema(
    graphql: bool = typer.Option(False, "--graphql", help="print the GraphQL SDL of the API instead"),
) -> None:
    """Print the JSON Schema of the ColaBench bundle format (or the API's GraphQL SDL)."""
    if graphql:
        from api.schema import schema as graphql_schema

        print(graphql_schema.as_str())
        return
    from ingest.bundle.models import bundle_json_schema

    print(json.dumps(bundle_json_schema(), indent=2))
