"""`colabench neo4j start|stop|status|logs`."""

from __future__ import annotations

import typer

from cli.context import console, expected_errors
from graph.server import LocalNeo4jServer
from graph.settings import Neo4jSettings

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True)


def _server() -> LocalNeo4jServer:
    settings = Neo4jSettings()
    if settings.is_external:
        console.print(f"NEO4J_URI is set ({settings.uri}): the project does not manage that server.")
        raise typer.Exit(0)
    return LocalNeo4jServer(settings)


@app.command()
@expected_errors
def start(timeout: float = typer.Option(None, help="seconds to wait for readiness")) -> None:
    """Build the launcher if needed (Maven, first time only), start Neo4j and wait until it is ready."""
    server = _server()
    with console.status("starting Neo4j (the first start fetches Neo4j from Maven Central)..."):
        status = server.start(timeout)
    console.print(f"Neo4j is ready at {status.uri} (pid {status.pid}, data {status.home})")


@app.command()
@expected_errors
def stop() -> None:
    """Stop the local Neo4j cleanly."""
    stopped = _server().stop()
    console.print("Neo4j stopped." if stopped else "Neo4j was not running.")


@app.command()
@expected_errors
def status() -> None:
    """Say whether the local Neo4j runs, where, and with which data directory."""
    current = _server().status()
    console.print(
        f"{'running' if current.running else 'not running'}: {current.detail}; uri {current.uri}; "
        f"pid {current.pid or '-'}; data {current.home}; log {current.log}"
    )
    if not current.running:
        raise typer.Exit(3)


@app.command()
@expected_errors
def logs(lines: int = typer.Option(50, "-n", help="how many lines")) -> None:
    """Print the last lines of the local Neo4j's log."""
    console.print(_server().tail_log(lines), markup=False)
