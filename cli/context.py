"""Shared CLI plumbing: the console, expected-error handling, lazily opened driver and store."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

from neo4j.exceptions import ClientError, ServiceUnavailable, SessionExpired, TransientError
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from cli.debug_log import record_traceback
from cli.exit_codes import EXIT_INTERRUPTED, exit_code_for
from graph.connection import open_driver
from graph.errors import ColabenchError
from graph.settings import Neo4jSettings
from graph.store import EventStore

# Output to a log or pipe (no terminal, no COLUMNS) gets a wide console: rich's 80-column default squeezed run
# ids and statuses in the run summary to "sample-…" / "incompl…" in logs.
LOG_WIDTH = 160


def _console(stderr: bool) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    piped = not stream.isatty() and not os.environ.get("COLUMNS")
    return Console(stderr=stderr, highlight=False, width=LOG_WIDTH if piped else None)


console = _console(stderr=False)
err_console = _console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])

# Expected failures: every colabench error (graph, input, query, LLM, memory, API, usage...), a file that is not
# there, and settings that do not validate. Anything else is a bug and keeps its traceback.
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (ColabenchError, FileNotFoundError, ValidationError)


def _expected(exc: BaseException) -> bool:
    return isinstance(exc, EXPECTED_ERRORS)


def _neo4j_refusal(exc: BaseException) -> str | None:
    """One line for the server-side failures a user can act on (out of memory, a database that is not there
    or not up); None for every other Neo4j error (a bug: it keeps its traceback)."""
    code = str(getattr(exc, "code", "") or "")
    message = (str(getattr(exc, "message", "") or exc).strip().splitlines() or [""])[0][:300]
    if isinstance(exc, TransientError):
        hint = "give Neo4j more memory (COLABENCH_NEO4J_HEAP for the local server), or " if "Memory" in code else ""
        return f"Neo4j could not finish the work ({code}: {message}); {hint}rerun the same command; it resumes"
    if isinstance(exc, ClientError) and code == "Neo.ClientError.Database.DatabaseNotFound":
        return f"Neo4j has no such database ({message}); check NEO4J_DATABASE"
    return None


def expected_errors(func: F) -> F:
    """Show expected failures as one clear message and exit non-zero, without a stack trace."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (ServiceUnavailable, SessionExpired) as exc:
            # Neo4j went away mid-command: every batch already appended is kept, so the rerun resumes.
            record_traceback(exc)
            uri = Neo4jSettings().effective_uri
            err_console.print(
                f"[bold red]error:[/] Neo4j at {uri} is not reachable: start it with `./colabench neo4j start`, "
                "then rerun the same command; it resumes where it stopped",
                markup=True, highlight=False, soft_wrap=True,
            )
            sys.exit(1)
        except Exception as exc:
            refusal = _neo4j_refusal(exc)
            if refusal is not None:
                record_traceback(exc)
                err_console.print(
                    f"[bold red]error:[/] {escape(refusal)}", markup=True, highlight=False, soft_wrap=True
                )
                sys.exit(1)
            if not _expected(exc):
                raise
            record_traceback(exc)  # the traceback goes to the debug log (and to stderr under --debug) only
            # Escaped and without emoji codes: a message quoting input (`file.json:100: ...`, `[x]`) prints as is.
            err_console.print(
                f"[bold red]error:[/] {escape(str(exc))}", markup=True, emoji=False, highlight=False, soft_wrap=True
            )
            sys.exit(exit_code_for(exc))
        except KeyboardInterrupt:
            err_console.print("[yellow]interrupted; run the same command again to resume[/]")
            sys.exit(EXIT_INTERRUPTED)

    return wrapper  # type: ignore[return-value]


@contextmanager
def open_store(
    with_encoder: bool = True, check_schema: bool = True, warn_incomplete: bool = True
) -> Iterator[EventStore]:
    """A store on the configured Neo4j; the encoder is loaded lazily (only embedding pays for it). Says so on
    stderr when an ingest was interrupted (`warn_incomplete`; the ingest command itself resumes it instead)."""
    settings = Neo4jSettings()
    driver = open_driver(settings)
    try:
        encoder = None
        if with_encoder:
            from graph.embeddings import load_encoder

            encoder = load_encoder()
        store = EventStore(driver, settings.database, encoder)
        if check_schema:
            store.ensure_schema()
        if warn_incomplete:
            from graph.ingest_status import incomplete_ingest_text, incomplete_ingests

            unfinished = incomplete_ingest_text(incomplete_ingests(driver, settings.database))
            if unfinished:
                err_console.print(f"[yellow]warning:[/] {unfinished}")
        yield store
    finally:
        driver.close()
