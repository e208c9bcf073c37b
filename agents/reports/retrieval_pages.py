"""The pages of a retrieval-only report (HTML and Markdown), rendered from its report data: per (line, level)
a table of micro means beside recall@k curves per recipe and per-question-type bars, then one expandable row
per item with its question, requirements and the user statements behind them, the gold documents and
sessions by title, and every recipe's ranked list by title with the gold hits marked. Ids link into the graph
browser (`/browser#node=<id>`). Renders older report data too (no `items` or `titles`: ids only)."""

from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Any

from agents.reports import svg
from agents.reports.html import GOLD_HIDDEN_NOTE, note_html
from agents.reports.links import node_link, title_link
from agents.retrieval_eval.report import EvalReport, GroupSummary, ItemRow

SHOWN_RANKS = 10
# The per-question-type bars show the first of these each summary has.
BAR_METRICS = ("recall_any@5", "recall_any@10", "ndcg@3")
CURVE_FAMILIES = (("recall_any", False), ("recall_all", True))

_CSS = (
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#222;padding:0 16px}"
    "h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px}"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ddd;padding:4px 7px;"
    "text-align:left;vertical-align:top}th{background:#f5f5f5}td.n{text-align:right;font-variant-numeric:"
    "tabular-nums}.banner{background:#fdecea;border:2px solid #d9534f;padding:12px 16px;font-size:15px}"
    "pre{white-space:pre-wrap;background:#f8f8f8;padding:6px;font-size:12px;max-height:240px;overflow:auto}"
    ".muted{color:#777}.charts{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}.hit{color:#1f7a3a;"
    "font-weight:600}.miss{color:#b02a2a}.item{border-left:3px solid #ccc;padding-left:10px;margin:8px 0}"
    "ol.ranked{margin:4px 0 10px}ol.ranked li.hit-row{background:#e9f6ec}details{margin:3px 0}"
    "details>summary{cursor:pointer}code{font-size:12px}"
)


def _groups(ev: EvalReport) -> list[tuple[str, list[GroupSummary]]]:
    """(heading, summaries) per (group, line, level); the group is named only when there are several."""
    groups: dict[tuple[str, str, str], list[GroupSummary]] = defaultdict(list)
    for s in ev.summaries:
        groups[(s.group, s.line, s.level)].append(s)
    several = len({key[0] for key in groups}) > 1
    return [
        (f"{f'{group}: ' if several else ''}{line} line, {level} level", summaries)
        for (group, line, level), summaries in groups.items()
    ]


def summary_table(summaries: list[GroupSummary]) -> tuple[list[str], list[list[str]]]:
    """(header, rows): one row per recipe and metric family, one column per cut-off (micro means)."""
    names = list(dict.fromkeys(n for s in summaries for n in s.micro))
    families = list(dict.fromkeys(n.partition("@")[0] for n in names if "@" in n))
    cuts = sorted({int(n.partition("@")[2]) for n in names if n.partition("@")[2].isdigit()})
    header = ["recipe", "n", "metric", *[f"@{c}" for c in cuts]]
    rows = []
    for s in summaries:
        for family in families:
            cells = [f"{s.micro[f'{family}@{c}']:.3f}" if f"{family}@{c}" in s.micro else "" for c in cuts]
            if any(cells):
                rows.append([s.recipe, str(s.n_items), family, *cells])
    return header, rows


def bar_metric(summaries: list[GroupSummary]) -> str | None:
    """The metric the per-type bars show: the first of BAR_METRICS measured, else the deepest recall_any."""
    names = {n for s in summaries for n in s.micro}
    recalls = sorted((n for n in names if n.startswith("recall_any@")), key=lambda n: int(n.partition("@")[2]))
    return next((m for m in BAR_METRICS if m in names), recalls[-1] if recalls else next(iter(sorted(names)), None))


def _charts(title: str, summaries: list[GroupSummary], ks: list[int]) -> str:
    parts = []
    curve_ks = [k for k in ks if any(f"recall_any@{k}" in s.micro for s in summaries)]
    if len(curve_ks) > 1:
        series = [
            (f"{s.recipe} {family.removeprefix('recall_')}", s.curve(family, curve_ks), dashed)
            for s in summaries
            for family, dashed in CURVE_FAMILIES
            if any(v is not None for v in s.curve(family, curve_ks))
        ]
        parts.append(svg.line_chart(f"recall@k, {title}", curve_ks, series, y_label="recall (micro)"))
    metric = bar_metric(summaries)
    types = sorted({t for s in summaries for t in s.per_type})
    if metric and types:
        bars = [
            (
                s.recipe,
                [s.per_type.get(t, {}).get(metric) for t in types],
                [s.per_type_n.get(t, 0) for t in types],
            )
            for s in summaries
        ]
        parts.append(svg.grouped_bars(f"{metric} per question type", types, bars, y_label=metric))
    return "".join(parts)


def _type_table(summaries: list[GroupSummary]) -> str:
    metric = bar_metric(summaries)
    types = sorted({t for s in summaries for t in s.per_type})
    if not metric or not types:
        return ""
    out = [
        f"<table><tr><th>question type ({escape(metric)})</th>"
        + "".join(f"<th>{escape(s.recipe)}</th>" for s in summaries)
        + "</tr>"
    ]
    for t in types:
        cells = []
        for s in summaries:
            value = s.per_type.get(t, {}).get(metric)
            cells.append(
                "<td class='n'>-</td>"
                if value is None
                else f"<td class='n'>{value:.3f} <span class='muted'>n={s.per_type_n.get(t, 0)}</span></td>"
            )
        out.append(f"<tr><td>{escape(t)}</td>{''.join(cells)}</tr>")
    macro = "".join(
        f"<td class='n'>{s.macro[metric]:.3f}</td>" if metric in s.macro else "<td class='n'>-</td>" for s in summaries
    )
    out.append(f"<tr><td><i>macro mean over types</i></td>{macro}</tr></table>")
    return "".join(out)


def _summary_section(title: str, summaries: list[GroupSummary], ks: list[int]) -> str:
    header, rows = summary_table(summaries)
    table = (
        "<div><table><tr>"
        + "".join(f"<th>{escape(h)}</th>" for h in header)
        + "</tr>"
        + "".join(
            "<tr>" + "".join(f"<td{' class=n' if i > 2 else ''}>{escape(c)}</td>" for i, c in enumerate(row)) + "</tr>"
            for row in rows
        )
        + "</table>"
        + _type_table(summaries)
        + "</div>"
    )
    return f"<h2>{escape(title)} (micro means)</h2><div class='charts'>{table}{_charts(title, summaries, ks)}</div>"


def hit_mark(row: ItemRow) -> str:
    """✓ and the first gold rank, ✗ when no gold id was ranked, or why the row was skipped."""
    if row.skipped is not None:
        return "<span class='muted'>skipped</span>"
    ranks = row.hit_ranks()
    return f"<span class='hit'>&#10003;{ranks[0]}</span>" if ranks else "<span class='miss'>&#10007;</span>"


def _metrics_table(metrics: dict[str, float]) -> str:
    families = list(dict.fromkeys(n.partition("@")[0] for n in metrics))
    cuts = sorted({n.partition("@")[2] for n in metrics}, key=lambda c: (not c.isdigit(), int(c) if c.isdigit() else 0))
    head = "".join(f"<th>@{escape(c)}</th>" for c in cuts)
    body = "".join(
        f"<tr><td>{escape(f)}</td>"
        + "".join(
            f"<td class='n'>{metrics[f'{f}@{c}']:.3f}</td>" if f"{f}@{c}" in metrics else "<td></td>" for c in cuts
        )
        + "</tr>"
        for f in families
    )
    return f"<table class='metrics'><tr><th>metric</th>{head}</tr>{body}</table>"


def _ranked(row: ItemRow, titles: dict[str, Any]) -> str:
    gold = set(row.gold)
    items = []
    for rank, node_id in enumerate(row.ranked[:SHOWN_RANKS], start=1):
        hit = node_id in gold
        mark = "<span class='hit' title='gold'>&#10003;</span> " if hit else ""
        items.append(
            f"<li class='{'hit-row' if hit else 'rank'}' value='{rank}'>{mark}{title_link(node_id, titles)}</li>"
        )
    later = [r for r in row.hit_ranks() if r > SHOWN_RANKS]
    tail = f"<p class='muted'>gold also at rank(s) {', '.join(map(str, later))}</p>" if later else ""
    return f"<ol class='ranked'>{''.join(items)}</ol>{tail}" if items else "<p class='muted'>nothing ranked</p>"


def _requirements(item: dict[str, Any], titles: dict[str, Any]) -> str:
    if not item.get("requirements"):
        return ""
    out = ["<p><b>Requirements</b> (and the user statements that disclosed their facts)</p><ul>"]
    for req in item["requirements"]:
        text = (
            escape(req["text"]) if req.get("text") is not None else f"<i class='muted'>{escape(GOLD_HIDDEN_NOTE)}</i>"
        )
        out.append(f"<li>{node_link(req['id'])} {text}")
        if req.get("action"):
            out.append(f"<br><i>action:</i> {escape(req['action'])}")
        for st in req.get("statements", []):
            session = (titles.get(st["id"]) or {}).get("session_id")
            where = f" <span class='muted'>in</span> {title_link(session, titles)}" if session else ""
            out.append(f"<br><i>user statement</i> {node_link(st['id'])}: &ldquo;{escape(st['text'])}&rdquo;{where}")
        for fact in req.get("facts", []):
            out.append(f"<br><i>condition</i> {node_link(fact['id'])}: {escape(fact['text'])}")
        for span in req.get("spans", []):
            out.append(
                f"<br><i>knowledge</i> {title_link(span['doc_id'], titles)} lines {span['start_line']}-"
                f"{span['end_line']}<pre>{escape(span['text'])}</pre>"
            )
        out.append("</li>")
    out.append("</ul>")
    return "".join(out)


def _reference_answer(item: dict[str, Any], hidden: bool) -> str:
    if hidden:
        return f"<p class='muted reference-answer-hidden'><b>Reference answer</b> {escape(GOLD_HIDDEN_NOTE)}</p>"
    if not item.get("reference_answer"):
        return ""
    return (
        "<details class='reference-answer'><summary>Reference answer</summary>"
        f"<p>{escape(str(item['reference_answer']))}</p></details>"
    )


def _gold_lists(item: dict[str, Any], rows: list[ItemRow], titles: dict[str, Any]) -> str:
    out = []

    def listed(label: str, ids: list[str]) -> None:
        if ids:
            out.append(f"<p><b>{label}:</b> " + ", ".join(title_link(i, titles) for i in ids) + "</p>")

    listed("Gold documents (support)", list(item.get("support_doc_ids") or []))
    listed("History documents", list(item.get("history_doc_ids") or []))
    for level, label in (("document", "Gold documents"), ("session", "Gold sessions"), ("turn", "Gold turns")):
        ids = list(dict.fromkeys(g for r in rows if r.level == level for g in r.gold))
        if level == "document" and set(ids) <= set(item.get("support_doc_ids") or []):
            continue
        listed(label, ids)
    return "".join(out)


def _item_block(index: int, item: dict[str, Any], rows: list[ItemRow], data: dict[str, Any]) -> str:
    titles = data.get("titles") or {}
    redacted = set(data.get("redacted_fields") or ())
    marks = " &middot; ".join(f"{escape(r.recipe)} {escape(r.level)} {hit_mark(r)}" for r in rows)
    question = str(item.get("question") or "")
    out = [
        f"<details class='item-row'><summary><code>{escape(str(item['item_id']))}</code> "
        f"<span class='muted'>[{escape(str(item.get('type') or rows[0].type))}]</span> {escape(question[:120])} "
        f"&mdash; {marks}</summary><div class='item'>",
    ]
    if "question" in item:
        profile = f" of profile {node_link(str(item['profile_id']))}" if item.get("profile_id") else ""
        asked = f", asked {escape(str(item['asked_at']))}" if item.get("asked_at") else ""
        out.append(
            f"<p><b>Item</b> {node_link(str(item['item_id']))}{profile}{asked}</p>"
            f"<p><b>Question.</b> {escape(question)}</p>"
        )
        out.append(_reference_answer(item, f"items[{index}].reference_answer" in redacted))
        out.append(_requirements(item, titles))
    out.append(_gold_lists(item, rows, titles))
    for r in rows:
        out.append(f"<h3>{escape(r.recipe)}: {escape(r.line)} line, {escape(r.level)} level {hit_mark(r)}</h3>")
        if r.skipped is not None:
            out.append(f"<p class='muted'>skipped: {escape(r.skipped)}</p>")
            continue
        out.append(f"<div class='charts'><div>{_ranked(r, titles)}</div>{_metrics_table(r.metrics)}</div>")
        for note in r.notes:
            out.append(f"<p class='muted'>note: {escape(note)}</p>")
    out.append("</div></details>")
    return "".join(out)


def rows_by_item(ev: EvalReport) -> dict[str, list[ItemRow]]:
    out: dict[str, list[ItemRow]] = defaultdict(list)
    for row in ev.rows:
        out[row.item_id].append(row)
    return out


def render_retrieval_html(data: dict[str, Any]) -> str:
    """The whole retrieval-only report as one self-contained HTML document."""
    ev = EvalReport.model_validate(data["evaluation"])
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{escape(data['title'])}</title><style>{_CSS}</style></head><body>",
        "<div class='banner'><b>RETRIEVAL-ONLY REPORT.</b> No LLM is configured, so this is not an evaluation of "
        "answers: there is no accuracy, no judging and no state summary. It measures the retrieval recipes the "
        "chosen methods use, with each item's question as the query.</div>",
        f"<h1>{escape(data['title'])}</h1>",
        "<h2>Skipped</h2><ul>" + "".join(f"<li>{escape(s)}</li>" for s in data["skipped"]) + "</ul>",
        "<p>Set <code>COLABENCH_LLM_BASE_URL</code> and <code>COLABENCH_LLM_MODEL</code> (or <code>[llm]</code> in "
        "colabench.toml) and run the same command again for the full evaluation.</p>",
        "<h2>Methods and their recipes</h2><ul>"
        + "".join(
            f"<li>{escape(m['label'])} ({escape(m['name'])}): {escape(', '.join(m['recipes']))}</li>"
            for m in data["methods"]
        )
        + "</ul>",
    ]
    parts.extend(f"<p class='muted'>note: {note_html(str(note))}</p>" for note in data["notes"])
    parts.append(
        f"<p class='muted'>Dataset {escape(ev.dataset)} ({escape(ev.kind)}, {escape(ev.path)}); corpus: "
        f"{escape(str(ev.corpus))}; encoder {escape(ev.encoder_id)}; recall_any / recall_all / NDCG use "
        "LongMemEval's definitions (solid curves recall_any, dashed recall_all); first_search_hit is a gold "
        "document among the 5 documents of the first search.</p>"
    )
    for title, summaries in _groups(ev):
        parts.append(_summary_section(title, summaries, ev.ks))
    by_item = rows_by_item(ev)
    details = {str(item["item_id"]): (i, item) for i, item in enumerate(data.get("items") or [])}
    parts.append(
        f"<h2>Items ({len(by_item)})</h2><p class='muted'>Each row expands to the item, its gold and every recipe's "
        f"ranked list (top {SHOWN_RANKS}, by title); <span class='hit'>&#10003;</span> marks a gold id and the "
        "summary gives the first gold rank (<span class='miss'>&#10007;</span>: none ranked).</p>"
    )
    for item_id, rows in by_item.items():
        index, item = details.get(item_id, (-1, {"item_id": item_id}))
        parts.append(_item_block(index, item, rows, data))
    parts.append("</body></html>")
    return "\n".join(parts)


def render_retrieval_markdown(data: dict[str, Any]) -> str:
    """The retrieval-only report as Markdown: tables, per-type means and each item's gold and first hits."""
    ev = EvalReport.model_validate(data["evaluation"])
    titles = data.get("titles") or {}
    lines = [
        f"# {data['title']}",
        "",
        "> **RETRIEVAL-ONLY:** no LLM is configured; no answers, no judging, no accuracy. Skipped: "
        + "; ".join(data["skipped"])
        + ".",
        "",
    ]
    lines.extend(f"- note: {note}" for note in data["notes"])
    for title, summaries in _groups(ev):
        header, rows = summary_table(summaries)
        lines += ["", f"## {title} (micro means)", "", "| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
        lines.extend("| " + " | ".join(row) + " |" for row in rows)
        metric = bar_metric(summaries)
        types = sorted({t for s in summaries for t in s.per_type})
        if metric and types:
            lines += ["", f"{metric} per question type:", ""]
            lines += [
                "| type | " + " | ".join(s.recipe for s in summaries) + " |",
                "|" + " --- |" * (len(summaries) + 1),
            ]
            for t in types:
                cells = []
                for s in summaries:
                    value = s.per_type.get(t, {}).get(metric)
                    cells.append("-" if value is None else f"{value:.3f} (n={s.per_type_n.get(t, 0)})")
                lines.append(f"| {t} | " + " | ".join(cells) + " |")

    def name(node_id: str) -> str:
        title = (titles.get(node_id) or {}).get("title")
        return f"{title} (`{node_id}`)" if title else f"`{node_id}`"

    details = {str(item["item_id"]): item for item in data.get("items") or []}
    lines += ["", "## Items", ""]
    for item_id, item_rows in rows_by_item(ev).items():
        item = details.get(item_id, {})
        lines.append(f"- **{item_id}** [{item_rows[0].type}] {item.get('question', '')}")
        gold_docs = list(
            item.get("support_doc_ids") or dict.fromkeys(g for r in item_rows if r.level == "document" for g in r.gold)
        )
        if gold_docs:
            lines.append("  - gold documents: " + "; ".join(name(d) for d in gold_docs))
        for r in item_rows:
            if r.skipped is not None:
                lines.append(f"  - {r.recipe} {r.level}: skipped ({r.skipped})")
                continue
            ranks = r.hit_ranks()
            top = name(r.ranked[0]) if r.ranked else "nothing"
            hit = f"first gold at rank {ranks[0]}" if ranks else "no gold ranked"
            lines.append(f"  - {r.recipe} {r.level}: {hit}; top: {top}")
    return "\n".join(lines) + "\n"
