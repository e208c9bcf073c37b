"""Progress of long phases for `eval retrieval`: a rich bar on a terminal, plain periodic lines otherwise.

The line form (one line per phase start, then at most one every `every` seconds, and one when a phase
completes) reads well in CI logs and files, where a redrawn bar would be noise or nothing at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

from rich.console import Console
from rich.progress import TaskID

from cli.context import err_console, progress_bar

PhaseProgress = Callable[[str, int, int], None]


class ProgressLines:
    """`(phase, done, total)` callbacks written as plain lines: `progress: evaluating 40/130 (31%) 12.3 s`."""

    def __init__(self, stream: IO[str], every: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.every = every
        self.clock = clock
        self.started: dict[str, float] = {}
        self.last: dict[str, float] = {}
        self.finished: set[str] = set()

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = self.clock()
        first = phase not in self.started
        if first:
            self.started[phase] = now
        complete = total > 0 and done >= total
        if complete and phase in self.finished:
            return
        if not (first or complete or now - self.last.get(phase, now) >= self.every):
            return
        self.last[phase] = now
        if complete:
            self.finished.add(phase)
        share = f" ({100 * done / total:.0f}%)" if total else ""
        self.stream.write(f"progress: {phase} {done:,}/{total:,}{share} {now - self.started[phase]:.1f} s\n")
        self.stream.flush()


@contextmanager
def phase_progress(console: Console = err_console, every: float = 10.0) -> Iterator[PhaseProgress]:
    """A `(phase, done, total)` callback: a live bar when `console` is a terminal, else `ProgressLines`."""
    if not console.is_terminal:
        yield ProgressLines(console.file, every)
        return
    with progress_bar() as bar:
        tasks: dict[str, TaskID] = {}

        def on_progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=total)

        yield on_progress
