"""Report section: the endpoint traffic of each run, per role — requests, retries, HTTP 429s, seconds slept
before retries and waited for a request slot, and the endpoint's prefix-cache hit rate (cached / prompt tokens
of the replies that said; "n/a" where none did). Read from the run record's usage (RunFinished /
RunLeftIncomplete), so it covers every invocation that worked on the run."""

from __future__ import annotations

from html import escape
from typing import Any

from agents.llm.traffic import PREFIX_UNKNOWN, sent_roles, traffic_row
from agents.reports.html import node_link
from agents.reports.sections import ReportSection, SectionContext, register_section

TITLE = "Endpoint traffic: rate limits and prefix cache"
NOTE = (
    "Per role, over every invocation of the run: requests sent (retries included), HTTP 429 replies, seconds "
    "slept before retries (Retry-After or jittered backoff) and waited for a request slot (the role's and the "
    "endpoint's concurrency, the endpoint's requests-per-minute limit). Prefix cache = prompt tokens the "
    "endpoint's cache held / prompt tokens, over the replies that said; n/a: the endpoint never said."
)
_COLUMNS = ("role", "requests", "retries", "HTTP 429", "backoff s", "slot wait s", "prefix cache")


def collect(context: SectionContext) -> dict[str, Any] | None:
    runs = []
    for record in context.records:
        rows = [traffic_row(role, counters) for role, counters in sent_roles(record.usage or {})]
        if rows:
            runs.append({"run_id": record.run_id, "label": record.label, "roles": rows})
    return {"runs": runs} if runs else None


def _rate(row: dict[str, Any]) -> str:
    rate = row.get("prefix_hit_rate")
    if rate is None:
        return PREFIX_UNKNOWN
    return f"{rate * 100:.1f}% of {row['prefix_prompt_tokens']:,}"


def _cells(row: dict[str, Any]) -> list[str]:
    return [
        str(row["role"]),
        f"{row['endpoint_requests']:,}",
        f"{row['retries']:,}",
        f"{row['rate_limited']:,}",
        f"{row['backoff_wait_s']:.1f}",
        f"{row['limiter_wait_s']:.1f}",
        _rate(row),
    ]


def render_html(data: dict[str, Any], report: dict[str, Any]) -> str:
    out = [f"<h2>{escape(TITLE)}</h2><p class='muted'>{escape(NOTE)}</p>"]
    for run in data["runs"]:
        out.append(f"<h3>{escape(run['label'])} {node_link(run['run_id'])}</h3><table><tr>")
        out.extend(f"<th>{escape(c)}</th>" for c in _COLUMNS)
        out.append("</tr>")
        for row in run["roles"]:
            cells = _cells(row)
            out.append(
                f"<tr><td>{escape(cells[0])}</td>" + "".join(f"<td class='n'>{escape(c)}</td>" for c in cells[1:])
            )
            out.append("</tr>")
        out.append("</table>")
    return "".join(out)


def render_markdown(data: dict[str, Any], report: dict[str, Any]) -> list[str]:
    lines = [f"## {TITLE}", "", NOTE]
    for run in data["runs"]:
        lines += ["", f"### {run['label']} ({run['run_id']})", "", "| " + " | ".join(_COLUMNS) + " |"]
        lines.append("| --- |" + " ---: |" * (len(_COLUMNS) - 1))
        lines.extend("| " + " | ".join(_cells(row)) + " |" for row in run["roles"])
    return lines


register_section(
    ReportSection(
        name="llm_traffic",
        title=TITLE,
        order=70,
        collect=collect,
        html=render_html,
        markdown=render_markdown,
    )
)
