"""Report section: shared personal background across the report's tasks (paper App. C.3)."""

from __future__ import annotations

from html import escape
from typing import Any

from agents.metrics.shared_background import MIN_DOCUMENTS, shared_background
from agents.reports.html import node_link
from agents.reports.sections import ReportSection, SectionContext, register_section

# Groups listed in the report (largest first); the counts always cover every group.
LISTED_GROUPS = 30
PAPER = (
    "the paper, on its own data: 98 groups over 349 tasks; 60 groups with >= 2 reference documents, 311 tasks (89.1%)"
)


def collect(context: SectionContext) -> dict[str, Any] | None:
    item_ids = list(dict.fromkeys(i for record in context.records for i in record.item_ids))
    if not item_ids:
        return None
    result = shared_background(context.driver, context.database, item_ids)
    data = result.model_dump()
    data["groups"] = [{**g, "n_documents": len(g["doc_ids"])} for g in data["groups"][:LISTED_GROUPS]]
    data["n_groups_listed"] = len(data["groups"])
    return data


def _share(data: dict[str, Any]) -> str:
    share = data.get("share_items_multi_document")
    return "n/a" if share is None else f"{share * 100:.1f}%"


def _rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        ("tasks", str(data["n_items"])),
        ("groups (profile x exact fact set)", str(data["n_groups"])),
        (f"groups with >= {MIN_DOCUMENTS} distinct reference documents", str(data["n_groups_multi_document"])),
        ("tasks in those groups", f"{data['n_items_multi_document']} ({_share(data)})"),
        ("groups of >= 2 tasks", str(data["n_groups_multi_task"])),
        ("tasks using no fact (grouped by profile alone)", str(data["n_items_without_facts"])),
    ]


def render_html(data: dict[str, Any], report: dict[str, Any]) -> str:
    out = [
        "<h2>Shared background across tasks (App. C.3)</h2>",
        "<p class='muted'>Tasks grouped by profile and the exact set of facts their requirements use; a group "
        f"whose tasks need several reference documents asks different rules of one personal background. For "
        f"orientation, {escape(PAPER)}.</p><table>",
    ]
    out.extend(f"<tr><td>{escape(k)}</td><td class='n'>{escape(v)}</td></tr>" for k, v in _rows(data))
    out.append("</table>")
    if data["groups"]:
        out.append(
            f"<h3>Largest groups ({data['n_groups_listed']} of {data['n_groups']})</h3><table><tr><th>profile</th>"
            "<th>facts</th><th>tasks</th><th>reference documents</th></tr>"
        )
        for g in data["groups"]:
            facts = " ".join(node_link(f) for f in g["fact_ids"]) or "<span class='muted'>none</span>"
            tasks = " ".join(node_link(i) for i in g["item_ids"])
            docs = " ".join(node_link(d) for d in g["doc_ids"])
            out.append(
                f"<tr><td>{node_link(g['profile_id'])}</td><td>{facts}</td><td>{len(g['item_ids'])}: {tasks}</td>"
                f"<td>{g['n_documents']}: {docs}</td></tr>"
            )
        out.append("</table>")
    return "".join(out)


def render_markdown(data: dict[str, Any], report: dict[str, Any]) -> list[str]:
    lines = [
        "## Shared background across tasks (App. C.3)",
        "",
        f"Tasks grouped by profile x exact fact set; for orientation, {PAPER}.",
        "",
        "| what | count |",
        "| --- | ---: |",
    ]
    lines.extend(f"| {k} | {v} |" for k, v in _rows(data))
    if data["groups"]:
        lines += ["", "| profile | facts | tasks | reference documents |", "| --- | --- | ---: | ---: |"]
        for g in data["groups"]:
            lines.append(
                f"| {g['profile_id']} | {', '.join(g['fact_ids']) or 'none'} | {len(g['item_ids'])} | "
                f"{g['n_documents']} |"
            )
    return lines


register_section(
    ReportSection(
        name="shared_background",
        title="Shared background across tasks",
        order=40,
        collect=collect,
        html=render_html,
        markdown=render_markdown,
    )
)
