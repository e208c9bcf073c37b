"""Report section "LongMemEval reading line": every `eval qa` run in the graph, per question type accuracy
beside the retrieval figures of the same fed units (and the retrieval-or-reading diagnosis), and an
accuracy–latency–tokens chart with one point per run (feed, recipe, expansions, reader). No gold is kept:
verdicts and figures only, never reference answers or judge rationales."""

from __future__ import annotations

import json
import math
from html import escape
from typing import Any

from agents.reports.sections import ReportSection, SectionContext, register_section
from agents.reports.svg import PALETTE

_FONT = 'font-family="system-ui, sans-serif"'


def collect_qa_runs(driver: Any, database: str) -> list[dict[str, Any]]:
    """Summaries of every LongMemEval reading-line run in the graph (newest first), without per-question rows
    (memory-systems runs have their own section)."""
    from agents.qa.history import load_questions
    from agents.qa.summary import answer_rows, summarise_run
    from graph.cypher_files import load_cypher
    from graph.store import EventStore

    store = EventStore(driver, database, None)
    with driver.session(database=database) as session:
        runs = [dict(r) for r in session.run(load_cypher("qa/runs"))]
    out = []
    for run in runs:
        config = json.loads(run["config"]) if run["config"] else {}
        if config.get("line") == "memory_systems":
            continue  # eval qa --system: its own section (qa_memory_systems)
        with driver.session(database=database) as session:
            record = session.run(load_cypher("qa/run_items"), qa_run_id=run["qa_run_id"]).single()
        questions = load_questions(store, list(record["ids"]) if record else [])
        summary = summarise_run(
            run["qa_run_id"],
            str(config.get("label") or run["qa_run_id"]),
            answer_rows(store, run["qa_run_id"], questions),
        )
        data = summary.model_dump(mode="json", exclude={"rows"})
        data["models"] = json.loads(run["models"]) if run["models"] else {}
        data["config"] = config
        out.append(data)
    return out


def _collect(context: SectionContext) -> Any:
    runs = collect_qa_runs(context.driver, context.database)
    return {"runs": runs} if runs else None


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _text(x: float, y: float, text: str, size: int = 11, anchor: str = "middle") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {_FONT}>{escape(text)}</text>'


def qa_chart_svg(runs: list[dict[str, Any]]) -> str:
    """Accuracy (y) against mean reader latency (x, ms per question); the area of a point is the mean tokens
    per question. One labelled point per run."""
    points = [
        (
            r["label"],
            r["overall"]["mean_reader_ms"] or 0.0,
            r["overall"]["accuracy"],
            r["overall"]["mean_tokens"] or 0.0,
        )
        for r in runs
        if r["overall"]["accuracy"] is not None
    ]
    width, height, left, bottom, top, right = 620, 320, 64, 46, 36, 150
    title = "QA accuracy vs reader latency (point area = tokens per question)"
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{escape(title)}">' + _text(width / 2, 18, title, 13)
    )
    if not points:
        return head + _text(width / 2, 60, "no judged QA run yet", 12) + "</svg>"
    x_hi = max(p[1] for p in points) * 1.15 or 1.0
    t_hi = max(p[3] for p in points) or 1.0
    plot_w, plot_h = width - left - right, height - top - bottom
    body = [
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#888"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#888"/>',
        _text(left + plot_w / 2, height - 8, "mean reader latency per question (ms)", 11),
        _text(14, top + plot_h / 2, "accuracy", 11, "middle"),
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = top + plot_h * (1 - tick)
        body.append(_text(left - 6, y + 4, f"{tick:.0%}", 10, "end"))
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#eee"/>')
    for tick in range(5):
        value = x_hi * tick / 4
        body.append(_text(left + plot_w * tick / 4, top + plot_h + 16, f"{value:,.0f}", 10))
    for i, (label, x, y, tokens) in enumerate(points):
        cx, cy = left + x / x_hi * plot_w, top + plot_h * (1 - y)
        r = 4 + 14 * math.sqrt(tokens / t_hi)
        colour = PALETTE[i % len(PALETTE)]
        body.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="{colour}" fill-opacity="0.55" stroke="{colour}">'
            f"<title>{escape(label)}: {y:.1%}, {x:,.0f} ms, {tokens:,.0f} tokens</title></circle>"
        )
        legend_y = top + 14 + i * 16
        body.append(f'<rect x="{left + plot_w + 12}" y="{legend_y - 9}" width="10" height="10" fill="{colour}"/>')
        body.append(_text(left + plot_w + 26, legend_y, f"{label} ({tokens:,.0f} tok)", 10, "start"))
    return head + "".join(body) + "</svg>"


def _html(data: Any, _report: dict[str, Any]) -> str:
    parts = ["<h2>LongMemEval reading line (eval qa)</h2>", qa_chart_svg(data["runs"])]
    for run in data["runs"]:
        parts.append(
            f"<h3>{escape(run['label'])}</h3><p class='muted'><code>{escape(run['qa_run_id'])}</code>; "
            f"reader {escape(str(run['models'].get('reader')))}, judge {escape(str(run['models'].get('judge')))}; "
            f"task-averaged accuracy {_pct(run['task_averaged_accuracy'])}</p>"
        )
        parts.append(
            "<table><tr><th>type</th><th>n</th><th>judged</th><th>accuracy</th><th>recall_any@k</th>"
            "<th>recall_all@k</th><th>session recall_all</th><th>retrieved &amp; wrong (reading)</th>"
            "<th>missed &amp; wrong (retrieval)</th><th>ms</th><th>tokens</th></tr>"
        )
        for t in [*run["per_type"], run["overall"]]:
            d = t["diagnosis"] or {}
            parts.append(
                f"<tr><td>{escape(t['question_type'])}</td><td>{t['n']}</td><td>{t['n_judged']}</td>"
                f"<td>{_pct(t['accuracy'])}</td><td>{_pct(t['recall_any'])}</td><td>{_pct(t['recall_all'])}</td>"
                f"<td>{_pct(t['session_recall_all'])}</td><td>{d.get('retrieved_wrong', '-')}</td>"
                f"<td>{d.get('missed_wrong', '-')}</td><td>{(t['mean_reader_ms'] or 0):,.0f}</td>"
                f"<td>{(t['mean_tokens'] or 0):,.0f}</td></tr>"
            )
        parts.append("</table>")
    return "".join(parts)


def _markdown(data: Any, _report: dict[str, Any]) -> list[str]:
    lines = ["## LongMemEval reading line (eval qa)", ""]
    for run in data["runs"]:
        lines += [
            f"### {run['label']} (`{run['qa_run_id']}`)",
            "",
            "| type | n | accuracy | recall_any@k | recall_all@k | reading misses | retrieval misses | ms | tokens |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for t in [*run["per_type"], run["overall"]]:
            d = t["diagnosis"] or {}
            lines.append(
                f"| {t['question_type']} | {t['n']} | {_pct(t['accuracy'])} | {_pct(t['recall_any'])} | "
                f"{_pct(t['recall_all'])} | {d.get('retrieved_wrong', '-')} | {d.get('missed_wrong', '-')} | "
                f"{(t['mean_reader_ms'] or 0):,.0f} | {(t['mean_tokens'] or 0):,.0f} |"
            )
        lines.append("")
    return lines


register_section(
    ReportSection(
        name="qa_reading", title="LongMemEval reading line", order=60, collect=_collect, html=_html, markdown=_markdown
    )
)
