"""Report section: memory quality of the memory systems the report's runs read, over the profiles of their
items (no-LLM coverage from the graph, and the memory judges' tables when `./colabench eval memory` has
judged them). Verdict rows sit under `memory_judgments`, whose `reason` is gold (api/redaction.py)."""

from __future__ import annotations

from typing import Any

from agents.memory_quality.report import system_entry, systems_html, systems_markdown
from agents.reports.sections import ReportSection, SectionContext, register_section

ROWS_IN_EVALUATION_REPORT = 50


def _collect(ctx: SectionContext) -> Any:
    profiles: dict[str, set[str]] = {}
    for record in ctx.records:
        system = (record.config.get("method") or {}).get("memory_system")
        if system:
            profiles.setdefault(system, set()).update(r.profile_id for r in ctx.rows.get(record.run_id, []))
    if not profiles:
        return None
    return {
        "systems": [
            system_entry(ctx.driver, ctx.database, system, sorted(pids), max_rows=ROWS_IN_EVALUATION_REPORT)
            for system, pids in sorted(profiles.items())
            if pids
        ]
    }


def _html(data: Any, report: dict[str, Any]) -> str:
    return "<h2>Memory quality</h2>" + systems_html(data["systems"], heading="h3")


def _markdown(data: Any, report: dict[str, Any]) -> list[str]:
    return ["## Memory quality", "", *systems_markdown(data["systems"], heading="###")]


register_section(
    ReportSection(
        name="memory_quality",
        title="Memory quality",
        order=50,
        collect=_collect,
        html=_html,
        markdown=_markdown,
    )
)
