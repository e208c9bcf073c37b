"""Where the full traceback of an expected failure goes: one clear line on the console, the traceback in
`<data dir>/logs/cli-debug.log`, and on stderr too under `--debug` (or COLABENCH_DEBUG=1).

The traceback is redacted of gold: when an error of the chain `carries_gold` (graph.errors.ColabenchError: the
failure of a judge's or a synthesis role's request, whose endpoint may have echoed the reference answer), its
message and those of the exceptions it was raised from are withheld; the frames (where it happened) stay. A
pydantic ValidationError in the chain is written without the input values it would quote."""

from __future__ import annotations

import os
import sys
import time
import traceback

from pydantic import ValidationError

from graph.paths import data_dir

DEBUG_ENV = "COLABENCH_DEBUG"
# `--debug` of the current invocation: set on every invocation, so an in-process run (tests, an embedding
# program) never inherits an earlier one's flag the way a changed environment variable would.
_flag = {"debug": False}


def set_debug(on: bool) -> None:
    _flag["debug"] = on


def debug_enabled() -> bool:
    return _flag["debug"] or os.environ.get(DEBUG_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def debug_log_path() -> str:
    return str(data_dir() / "logs" / "cli-debug.log")


WITHHELD = "(message withheld from the log: it may quote gold)"


def _chain(exc: BaseException) -> list[BaseException]:
    """`exc` and the exceptions it was raised from or while handling, outermost first."""
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in out):
        out.append(current)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return out


def _message(error: BaseException) -> str:
    """An exception's message; a pydantic ValidationError's without the input values it would quote (a
    rejected record's fields: a reference answer, a requirement's text)."""
    if isinstance(error, ValidationError):
        problems = error.errors(include_input=False, include_url=False)
        where = [".".join(str(p) for p in e.get("loc", ())) or "(value)" for e in problems]
        return f"{len(problems)} validation error(s): " + "; ".join(
            f"{w}: {e.get('msg', '')}" for w, e in zip(where, problems, strict=True)
        )
    return str(error)


def format_traceback(exc: BaseException) -> str:
    """The traceback of `exc` as Python prints it, but without the messages of a gold-carrying error and of the
    exceptions under it, and without the input values a validation error quotes."""
    chain = _chain(exc)
    gold_at = next((i for i, e in enumerate(chain) if getattr(e, "carries_gold", False)), None)
    if gold_at is None and not any(isinstance(e, ValidationError) for e in chain):
        return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    parts = []
    for index in range(len(chain) - 1, -1, -1):
        error = chain[index]
        frames = "".join(traceback.format_tb(error.__traceback__)) if error.__traceback__ is not None else ""
        head = "Traceback (most recent call last):\n" if frames else ""
        message = WITHHELD if gold_at is not None and index >= gold_at else _message(error)
        parts.append(f"{head}{frames}{type(error).__module__}.{type(error).__qualname__}: {message}\n")
    return "\nwhich led to:\n\n".join(parts)


def record_traceback(exc: BaseException) -> str | None:
    """Append the traceback of `exc`, redacted of gold, to the debug log (and print it under --debug); the log's
    path, or None when it could not be written (the one-line message is what matters then)."""
    text = format_traceback(exc)
    if debug_enabled():
        sys.stderr.write(text)
    path = debug_log_path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a", encoding="utf-8") as log:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            log.write(f"--- {stamp} colabench {' '.join(sys.argv[1:])[:500]}\n{text}")
    except OSError:
        return None
    return path
