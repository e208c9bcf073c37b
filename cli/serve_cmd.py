"""`colabench serve`: the GraphQL provenance API, the graph browser and the report pages."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

import typer

from cli.context import console, err_console, expected_errors


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@expected_errors
def serve(
    host: str = typer.Option(None, help="address to bind (default 127.0.0.1, or COLABENCH_API_HOST / [api] host)"),
    port: int = typer.Option(None, help="port (default 8000, or COLABENCH_API_PORT / [api] port)"),
    workers: int = typer.Option(1, min=1, max=16, help="worker processes (each with its own Neo4j connections)"),
    reports_dir: Path = typer.Option(None, help="directory of report pages served under /reports/"),
    log_level: str = typer.Option("info", help="debug, info, warning or error"),
) -> None:
    """Serve the API: GraphQL at /graphql, the graph browser at /browser, reports at /reports/, /healthz, /readyz."""
    import uvicorn

    from api.settings import ApiSettings
    from graph.connection import open_driver
    from graph.errors import Neo4jUnavailableError
    from graph.settings import Neo4jSettings

    if reports_dir is not None:
        # Workers are separate processes that read their settings from the environment.
        os.environ["COLABENCH_REPORTS_DIR"] = str(reports_dir.resolve())
    settings = ApiSettings()
    bind_host = host or settings.host
    bind_port = port or settings.port
    require_free_port(bind_host, bind_port)
    neo4j = Neo4jSettings()
    try:
        open_driver(neo4j).close()
    except Neo4jUnavailableError as exc:
        err_console.print(f"[yellow]warning:[/] {exc}; the API starts anyway and /readyz reports 503 until it is up")
    if not _is_loopback(bind_host):
        err_console.print(
            f"[yellow]note:[/] listening on {bind_host}, reachable from other machines; reads are public, "
            + ("mutations need the API token" if settings.mutations_enabled else "mutations are disabled (no token)")
        )
    console.print(
        f"colabench API on http://{bind_host}:{bind_port}  (graph browser /browser, GraphQL /graphql, reports "
        f"/reports/ from {settings.effective_reports_dir}; mutations "
        f"{'enabled' if settings.mutations_enabled else 'disabled: no COLABENCH_API_TOKEN'})"
    )
    uvicorn.run(
        "api.app:create_app",
        factory=True,
        host=bind_host,
        port=bind_port,
        workers=workers,
        log_level=log_level,
        access_log=False,
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=10,
    )


def require_free_port(host: str, port: int) -> None:
    """UsageError when nothing can listen on host:port (in use, or not an address of this machine), checked
    before the app starts instead of after uvicorn has imported and opened everything."""
    import socket

    from graph.errors import UsageError

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: TIME_WAIT is not "in use"
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise UsageError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}; stop what holds the port or give --port"
            ) from None
