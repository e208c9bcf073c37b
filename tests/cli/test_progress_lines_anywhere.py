"""Progress everywhere (issue 28, item 3): off a terminal, every `progress_bar()` of the CLI writes plain
`progress:` lines (first update, then at most one per interval, completion, and unfinished work at stop),
driven here by a hand-moved clock, never by sleeping."""

from __future__ import annotations

import io

from rich.console import Console

from cli.progress_lines import LineProgress


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_line_progress_writes_first_periodic_final_and_unfinished_lines() -> None:
    out = io.StringIO()
    clock = Clock()
    with LineProgress(console=Console(file=out, force_terminal=False), every=10.0, clock=clock) as bar:
        ingest = bar.add_task("ingest", total=100)
        bar.update(ingest, completed=1)  # first line
        clock.now = 3.0
        bar.advance(ingest, 10)  # too soon: no line
        clock.now = 12.0
        bar.update(ingest, completed=40)  # interval passed
        clock.now = 13.0
        bar.update(ingest, completed=100)  # complete
        links = bar.add_task("links", total=50)
        bar.update(links, completed=5)
        clock.now = 15.0
        bar.update(links, completed=7)  # too soon: shown only when the bar stops
    lines = out.getvalue().splitlines()
    assert lines == [
        "progress: ingest 1/100 (1%) 0.0 s",
        "progress: ingest 40/100 (40%) 12.0 s",
        "progress: ingest 100/100 (100%) 13.0 s",
        "progress: links 5/50 (10%) 0.0 s",
        "progress: links 7/50 (14%) 2.0 s",
    ]


def test_the_cli_bar_is_plain_lines_when_stderr_is_not_a_terminal() -> None:
    from cli import context, progress_lines

    assert not context.err_console.is_terminal  # pytest captures stderr
    assert isinstance(progress_lines.progress_bar(), LineProgress)
