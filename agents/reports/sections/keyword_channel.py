"""Report section: what "keyword" meant in each run whose method searches with a keyword channel (KEYWORD,
HYBRID, MEMKB...): per search recipe, the analyzer, its definition (tokens, stop list, stemming), the full-text
index of the knowledge line and whether the keyword list was padded, as the run recorded them when it started
(`RunStarted.config.keyword_channel`, query.recipes.keyword_channel_record). A run that predates the record but
whose method has a keyword channel is listed as not recorded, never filled in from today's defaults."""

from __future__ import annotations

from html import escape
from typing import Any

from agents.reports.html import node_link
from agents.reports.sections import ReportSection, SectionContext, register_section

TITLE = "Keyword channel"
NOTE = (
    "What the keyword channel of each run meant, as the run recorded it when it started: the analyzer, its "
    "tokens, stop list and stemming (memory line: rank-bm25 Okapi over these tokens; knowledge line: Lucene BM25 "
    "over the full-text index named), and whether the keyword list was padded before the fusion."
)
NOT_RECORDED = "not recorded (the run predates the record of its keyword channel)"


def _keyword_recipes(method: str) -> list[str]:
    """Today's search recipes of `method` that have a keyword channel (empty for an unknown method)."""
    from agents.methods.registry import METHODS

    spec = METHODS.get(method)
    if spec is None:
        return []
    return [r.name for r in spec.recipes() if r.uses_keyword]


def _collect(ctx: SectionContext) -> Any:
    runs = []
    for record in ctx.records:
        recorded = record.config.get("keyword_channel")
        if isinstance(recorded, dict):
            rows = [
                {
                    "recipe": str(name),
                    "analyzer": str(entry.get("analyzer", "")),
                    "definition": str(entry.get("definition", "")),
                    "fulltext_index": str(entry.get("fulltext_index", "")),
                    "padding": bool(entry.get("padding", False)),
                }
                for name, entry in recorded.items()
                if isinstance(entry, dict)
            ]
            if rows:
                runs.append({"run_id": record.run_id, "label": record.label, "recorded": True, "recipes": rows})
        elif recipes := _keyword_recipes(record.method):
            runs.append(
                {
                    "run_id": record.run_id,
                    "label": record.label,
                    "recorded": False,
                    "recipes": [{"recipe": name} for name in recipes],
                }
            )
    return {"runs": runs} if runs else None


def _padding(row: dict[str, Any]) -> str:
    return "padded to the budget (BM25 0, ties by id)" if row["padding"] else "not padded"


def _html(data: Any, report: dict[str, Any]) -> str:
    out = [
        f"<h2>{escape(TITLE)}</h2><p class='muted'>{escape(NOTE)}</p><table><tr><th>run</th><th>recipe</th>"
        "<th>analyzer</th><th>definition (tokens, stop list, stemming)</th><th>full-text index</th>"
        "<th>keyword list</th></tr>"
    ]
    for run in data["runs"]:
        for row in run["recipes"]:
            head = f"<td>{escape(run['label'])} {node_link(run['run_id'])}</td><td>{escape(row['recipe'])}</td>"
            if not run["recorded"]:
                out.append(f"<tr>{head}<td colspan='4' class='muted'>{escape(NOT_RECORDED)}</td></tr>")
                continue
            out.append(
                f"<tr>{head}<td><code>{escape(row['analyzer'])}</code></td><td>{escape(row['definition'])}</td>"
                f"<td><code>{escape(row['fulltext_index'])}</code></td><td>{escape(_padding(row))}</td></tr>"
            )
    out.append("</table>")
    return "".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown(data: Any, report: dict[str, Any]) -> list[str]:
    lines = [
        f"## {TITLE}",
        "",
        NOTE,
        "",
        "| run | recipe | analyzer | definition (tokens, stop list, stemming) | full-text index | keyword list |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for run in data["runs"]:
        for row in run["recipes"]:
            head = f"| {_cell(run['label'])} ({run['run_id']}) | {_cell(row['recipe'])} |"
            if not run["recorded"]:
                lines.append(f"{head} {NOT_RECORDED} | | | |")
                continue
            lines.append(
                f"{head} `{row['analyzer']}` | {_cell(row['definition'])} | `{row['fulltext_index']}` | "
                f"{_padding(row)} |"
            )
    return lines


register_section(
    ReportSection(
        name="keyword_channel",
        title=TITLE,
        order=10,
        collect=_collect,
        html=_html,
        markdown=_markdown,
    )
)
