"""Report sections that grow: each is a module of this package that calls `register_section` at import.

A section collects its own data from the graph (`collect`, run once per report, given the runs and their
attempt rows), stores it under `data["sections"][name]` of report.json, and renders it into the HTML and the
Markdown report. The built-in sections of the report (summary, gains, funnel, traces) stay in
`agents/reports/html.py`; sections here come after the evidence funnel, in `order`.

Gold: section data goes through the same redaction as the rest of the report data (api/redaction.py):
name gold fields with the keys listed there (`reference_answer`, lists called `requirements` / `judgments`),
or add the section's gold keys to that module, so a served copy never carries them.

Every module of this package is imported by `load_sections()`; adding a section touches only its own module.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from neo4j import Driver


@dataclass(frozen=True)
class SectionContext:
    """What a section may read: the graph, the runs of the report (first run first), their attempt rows."""

    driver: Driver
    database: str
    records: list[Any]  # agents.metrics.attempts.RunRecord
    rows: dict[str, list[Any]]  # run_id -> [AttemptMetrics]
    metrics: dict[str, Any]  # run_id -> RunMetrics
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReportSection:
    name: str
    title: str
    order: int
    collect: Callable[[SectionContext], Any]  # JSON-able data, or None to leave the section out
    html: Callable[[Any, dict[str, Any]], str]  # (section data, whole report data) -> HTML fragment
    markdown: Callable[[Any, dict[str, Any]], list[str]]  # -> Markdown lines
    notes: Callable[[Any], list[str]] | None = None  # report-level notes the section adds (shown on top)


SECTIONS: dict[str, ReportSection] = {}
_loaded = False


def register_section(section: ReportSection) -> ReportSection:
    if section.name in SECTIONS and SECTIONS[section.name] is not section:
        raise ValueError(f"report section {section.name!r} is registered twice")
    SECTIONS[section.name] = section
    return section


def load_sections() -> list[ReportSection]:
    """Every section of this package (imported once), in order."""
    global _loaded
    if not _loaded:
        for module in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{module.name}")
        _loaded = True
    return sorted(SECTIONS.values(), key=lambda s: (s.order, s.name))


def collect_sections(context: SectionContext) -> tuple[dict[str, Any], list[str]]:
    """The data of every section that has something to show, and the notes they add."""
    out: dict[str, Any] = {}
    notes: list[str] = []
    for section in load_sections():
        value = section.collect(context)
        if value is None:
            continue
        out[section.name] = value
        if section.notes is not None:
            notes.extend(section.notes(value))
    return out, notes


def render_sections_html(data: dict[str, Any]) -> str:
    stored = data.get("sections") or {}
    parts = []
    for section in load_sections():
        if section.name in stored:
            parts.append(section.html(stored[section.name], data))
    return "".join(parts)


def render_sections_markdown(data: dict[str, Any]) -> list[str]:
    stored = data.get("sections") or {}
    lines: list[str] = []
    for section in load_sections():
        if section.name in stored:
            lines.extend(["", *section.markdown(stored[section.name], data)])
    return lines
