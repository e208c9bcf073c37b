"""Progress of long work: a rich bar on a terminal, plain periodic lines otherwise (`phase_progress` for phase
callbacks, `LineProgress` wherever the CLI asks `progress_bar()` for a bar).

The line form (one line per phase start, then at most one every `every` seconds, and one when a phase
completes) reads well in CI logs and files, where a redrawn bar would be noise or nothing at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from cli.context import err_console

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
        self.write_if_due(phase, done, total)

    def write_if_due(self, phase: str, done: int, total: int) -> bool:
        """Write a line when one is due; True when it did."""
        now = self.clock()
        first = phase not in self.started
        if first:
            self.started[phase] = now
        complete = total > 0 and done >= total
        if complete and phase in self.finished:
            return False
        if not (first or complete or now - self.last.get(phase, now) >= self.every):
            return False
        self.last[phase] = now
        if complete:
            self.finished.add(phase)
        share = f" ({100 * done / total:.0f}%)" if total else ""
        self.stream.write(f"progress: {phase} {done:,}/{total:,}{share} {now - self.started[phase]:.1f} s\n")
        self.stream.flush()
        return True


class LineProgress(Progress):
    """rich's Progress API (add_task, update, advance, start/stop) written as `ProgressLines` lines: the first
    update of a task, then at most one every `every` seconds, one when it completes and one at stop for a task
    left unfinished. Nothing is drawn live."""

    def __init__(
        self, console: Console, every: float = 10.0, clock: Callable[[], float] = time.monotonic, **_: Any
    ) -> None:
        super().__init__(console=console, auto_refresh=False, transient=False)
        self._lines = ProgressLines(console.file, every, clock)
        self._shown: dict[TaskID, float] = {}  # the count each task's last line showed

    def start(self) -> None:  # no live display
        return None

    def stop(self) -> None:
        for task in self.tasks:  # unfinished work ends with its last count, unless a line already shows it
            unfinished = task.total is None or task.completed < task.total
            if unfinished and self._shown.get(task.id) != task.completed:
                self._emit(task.id, force=True)

    def update(self, task_id: TaskID, **kwargs: Any) -> None:
        super().update(task_id, **kwargs)
        self._emit(task_id)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._emit(task_id)

    def _emit(self, task_id: TaskID, force: bool = False) -> None:
        task = self._tasks[task_id]
        name = str(task.description) or f"task {int(task_id)}"
        total = int(task.total or 0)
        if force and name in self._lines.last:  # due now, whatever the time since the last line
            self._lines.last[name] -= self._lines.every
        if self._lines.write_if_due(name, int(task.completed), total):
            self._shown[task_id] = task.completed


def progress_bar() -> Progress:
    """A live bar on a terminal; plain `progress:` lines otherwise (logs, pipes, CI), where a bar would show
    nothing until the work ends."""
    if not err_console.is_terminal:
        return LineProgress(console=err_console)
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=False,
    )


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
