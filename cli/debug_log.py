"""Where the full traceback of an expected failure goes: one clear line on the console, the traceback in
`<data dir>/logs/cli-debug.log`, and on stderr too under `--debug` (or COLABENCH_DEBUG=1)."""

from __future__ import annotations

import os
import sys
import time
import traceback

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


def record_traceback(exc: BaseException) -> str | None:
    """Append the traceback of `exc` to the debug log (and print it under --debug); the log's path, or None
    when it could not be written (the one-line message is what matters then)."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
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
