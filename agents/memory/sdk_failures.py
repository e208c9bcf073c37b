"""Failures a memory SDK logs and carries on past, caught per pair.

Mem0, Graphiti and A-MEM wrap parts of their work in `except Exception: logger.error(...)` (or a warning with
the traceback) and go on with less: Mem0 takes an unparseable extraction reply as "no memories", Graphiti skips
a timestamp or a candidate lookup, A-MEM skips evolution. Each such record logged while a pair is built makes the
pair a failed pair (agents.memory.build): nothing of it is written and its replies are not cached.

The watch is a logging handler on the SDK's loggers for the time of one pair. Logging is process-wide, so a
record from another thread of the same process in that time counts too: a watch may fail a pair it need not,
never pass one it should fail.
"""

from __future__ import annotations

import logging
import threading
from types import TracebackType

from pydantic import BaseModel


class LoggedFailure(BaseModel):
    """One record an SDK logged instead of raising."""

    logger: str
    level: str
    message: str

    def describe(self) -> str:
        return f"{self.logger} {self.level}: {self.message}"


class _Collector(logging.Handler):
    def __init__(self, watch: SdkFailureWatch) -> None:
        super().__init__(level=logging.DEBUG)
        self.watch = watch

    def emit(self, record: logging.LogRecord) -> None:
        counts = record.levelno >= self.watch.min_level or (record.levelno >= logging.WARNING and record.exc_info)
        if counts:
            try:
                message = record.getMessage()
            except Exception:  # a malformed log call must not hide that the SDK failed
                message = str(record.msg)
            if record.exc_info and record.exc_info[1] is not None:
                message = f"{message} ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
            self.watch.add(LoggedFailure(logger=record.name, level=record.levelname, message=message[:1000]))


class SdkFailureWatch:
    """While open, collects the records of `loggers` (and their children) at ERROR or above, and warnings that
    carry a traceback (or every warning with `min_level=logging.WARNING`)."""

    def __init__(self, loggers: tuple[str, ...], *, min_level: int = logging.ERROR) -> None:
        self.loggers = loggers
        self.min_level = min_level
        self.failures: list[LoggedFailure] = []
        self._lock = threading.Lock()
        self._handler = _Collector(self)
        self._levels: dict[str, int] = {}

    def add(self, failure: LoggedFailure) -> None:
        with self._lock:
            self.failures.append(failure)

    def __enter__(self) -> SdkFailureWatch:
        for name in self.loggers:
            logger = logging.getLogger(name)
            self._levels[name] = logger.level
            # the SDK's records must reach the handler whatever level the application set
            if logger.getEffectiveLevel() > logging.WARNING:
                logger.setLevel(logging.WARNING)
            logger.addHandler(self._handler)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for name in self.loggers:
            logger = logging.getLogger(name)
            logger.removeHandler(self._handler)
            logger.setLevel(self._levels.get(name, logging.NOTSET))

    def summary(self, limit: int = 3) -> str:
        """The first `limit` failures, one clause each, and how many more."""
        with self._lock:
            shown = [f.describe() for f in self.failures[:limit]]
            more = len(self.failures) - len(shown)
        return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
