"""The `colabench` command line: one entry point for people."""

from __future__ import annotations

import signal

import typer

from cli import (
    adjudicate_cmd,
    eval_cmd,
    eval_memory_cmd,
    events_cmd,
    graph_cmd,
    ingest_cmd,
    llm_cmd,
    memory_cmd,
    neo4j_cmd,
    profile_cmd,
    query_cmd,
    report_cmd,
    run_cmd,
    serve_cmd,
    synth_cmd,
)
from cli.debug_log import set_debug

# Plain (click) help everywhere: option names are never cut, whatever the terminal's width.
app = typer.Typer(
    rich_markup_mode=None, no_args_is_help=True, add_completion=False, help="ColaBench evidence graph and MemKB."
)


@app.callback()
def _options(
    debug: bool = typer.Option(
        False, "--debug", help="also print the traceback of an expected failure (kept in .data/logs/cli-debug.log)"
    ),
) -> None:
    set_debug(debug)


app.add_typer(neo4j_cmd.app, name="neo4j", help="Start, stop and inspect the project's local Neo4j.")
app.add_typer(graph_cmd.app, name="graph", help="Summarise, fingerprint or rebuild the projection.")
app.add_typer(events_cmd.app, name="events", help="Verify, export and import the event log.")
ingest_cmd.register(app)
app.add_typer(query_cmd.app, name="query", help="Search with a retrieval recipe, or read a document.")
app.add_typer(memory_cmd.app, name="memory", help="Build memory cards and their document links.")
app.add_typer(
    eval_cmd.app, name="eval",
    help="Evaluate on a dataset: retrieval (no LLM, except --key-expansion facts / --time-aware llm), qa (a reader "
    "and a judge) and memory (LLM memory judges).",
)
eval_memory_cmd.register(eval_cmd.app)
serve_cmd.register(app)
app.add_typer(profile_cmd.app, name="profile", help="Grow profiles: append sessions and turns, update memory.")
run_cmd.register(app)
report_cmd.register(app)
adjudicate_cmd.register(app)
app.add_typer(synth_cmd.app, name="synth", help="Build a new ColaBench dataset from the KB with the synthesis roles.")
app.add_typer(llm_cmd.app, name="llm", help="LLM roles: settings, ping, response cache, prompt hashes.")


def main() -> None:
    # A shell without job control (a script's `cmd &`, `nohup ... &`, many CI runners) starts its background
    # children with SIGINT ignored, and Python then never raises KeyboardInterrupt: Ctrl-C / `kill -INT` would not
    # stop a run cleanly. Every command takes SIGINT as "stop, keep what is written, resume on rerun".
    signal.signal(signal.SIGINT, signal.default_int_handler)
    app(prog_name="colabench")
