"""Report section: the verdicts of every registered judge that names this section as its `report_section`
(the binary-label judges: abstention (flawed-premise) and gotcha, LongMemEval-V2 style) per run, and which of
their prompts were the verbatim published ones, verified by their pinned SHA-256 (agents/prompts/pins.py). Only
counts and hashes: no rationale (gold) enters the report."""

from __future__ import annotations

from html import escape
from typing import Any

from agents.judging.base import Judge
from agents.judging.registry import section_judges as judges_naming
from agents.prompts.pins import verbatim_prompts
from agents.reports.sections import ReportSection, SectionContext, register_section
from graph.cypher_files import load_cypher

SECTION = "premise_judges"


def section_judges() -> list[Judge]:
    """The registered judges this section lists (those that declare it as their `report_section`), in registry
    order."""
    return judges_naming(SECTION)


def collect(context: SectionContext) -> dict[str, Any] | None:
    judges = section_judges()
    kinds = [kind for judge in judges for kind in judge.kinds()]
    prompt_names = {name for judge in judges for name in judge.recorded_prompt_names()}
    if not kinds:
        return None
    runs: list[dict[str, Any]] = []
    for record in context.records:
        with context.driver.session(database=context.database) as session:
            counts = [
                dict(r)
                for r in session.run(load_cypher("agents/premise_judgments"), run_id=record.run_id, kinds=kinds)
            ]
        verbatim = verbatim_prompts(record.prompt_hashes)
        premise_prompts = {
            name: {"sha256": rec.get("sha256"), "source": "verbatim" if rec.get("verbatim") else "project"}
            for name, rec in sorted(record.prompt_hashes.items())
            if name in prompt_names
        }
        if counts or verbatim:
            runs.append(
                {
                    "run_id": record.run_id,
                    "label": record.label,
                    "counts": counts,
                    "verbatim": verbatim,
                    "prompts": premise_prompts,
                }
            )
    return {"runs": runs} if runs else None


def _rate(row: dict[str, Any]) -> str:
    valid = int(row["label_1"]) + int(row["label_0"])
    return "n/a" if valid == 0 else f"{int(row['label_1']) / valid * 100:.1f}%"


def notes(data: dict[str, Any]) -> list[str]:
    out = []
    for run in data["runs"]:
        for name, label in run["verbatim"].items():
            out.append(f"{run['label']}: prompt {name} is the {label}")
    return out


def render_html(data: dict[str, Any], report: dict[str, Any]) -> str:
    out = [
        "<h2>Abstention and gotcha judges</h2>",
        "<p class='muted'>Binary labels (1: the answer handles the flawed premise / brings up the key point) on the "
        "items marked abstention or gotcha; rate = label 1 over valid replies. Prompts are the project's own unless "
        "marked verbatim (a published prompt verified by its pinned SHA-256).</p>",
        "<table><tr><th>run</th><th>judge</th><th>judged</th><th>label 1</th><th>label 0</th><th>invalid</th>"
        "<th>rate</th></tr>",
    ]
    for run in data["runs"]:
        for row in run["counts"]:
            out.append(
                f"<tr><td>{escape(run['label'])}</td><td>{escape(row['kind'])}</td><td class='n'>{row['n']}</td>"
                f"<td class='n'>{row['label_1']}</td><td class='n'>{row['label_0']}</td>"
                f"<td class='n'>{row['invalid']}</td><td class='n'>{_rate(row)}</td></tr>"
            )
    out.append("</table><ul>")
    for run in data["runs"]:
        for name, rec in run["prompts"].items():
            label = run["verbatim"].get(name) or f"project prompt, sha256 {rec['sha256']}"
            out.append(f"<li>{escape(run['label'])}: <code>{escape(name)}</code>: {escape(label)}</li>")
    out.append("</ul>")
    return "".join(out)


def render_markdown(data: dict[str, Any], report: dict[str, Any]) -> list[str]:
    lines = [
        "## Abstention and gotcha judges",
        "",
        "| run | judge | judged | label 1 | label 0 | invalid | rate |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run in data["runs"]:
        for row in run["counts"]:
            lines.append(
                f"| {run['label']} | {row['kind']} | {row['n']} | {row['label_1']} | {row['label_0']} | "
                f"{row['invalid']} | {_rate(row)} |"
            )
    lines.append("")
    for run in data["runs"]:
        for name, rec in run["prompts"].items():
            label = run["verbatim"].get(name) or f"project prompt, sha256 {rec['sha256']}"
            lines.append(f"- {run['label']}: `{name}`: {label}")
    return lines


register_section(
    ReportSection(
        name=SECTION,
        title="Abstention and gotcha judges",
        order=60,
        collect=collect,
        html=render_html,
        markdown=render_markdown,
        notes=notes,
    )
)
