"""The self-contained HTML report (inline CSS and SVG, no scripts needed): summary, paired gains with
intervals, charts, evidence funnel, run records, and one expandable evidence trace per item. Ids link to the
graph browser at `/browser#node=<id>` (served by `./colabench serve`)."""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

from agents.metrics.comparison import interval_informative, interval_text, strata_shown
from agents.metrics.funnel import STEPS
from agents.prompts.judging import ERROR_CATEGORIES, QUALITY_DIMENSIONS, VISIBILITY_LEVELS
from agents.reports import svg
from agents.reports.cells import errors_cell, excluded_text
from agents.reports.colours import method_colours
from agents.reports.costs import cost_rows, usd_text
from agents.reports.headline import headline_lines
from agents.reports.links import exchange_link, node_link, title_link
from agents.reports.sections import render_sections_html
from agents.reports.tool_returns import render_return_html, return_view

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#222;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #ddd;padding:4px 7px;text-align:left;vertical-align:top}th{background:#f5f5f5}
td.n{text-align:right;font-variant-numeric:tabular-nums}.note{background:#fff6e0;border:1px solid #f0d48a;
padding:8px 12px;margin:6px 0}.banner{background:#e8f0fb;border:1px solid #9db8e0;padding:10px 14px}
details{margin:2px 0}details>summary{cursor:pointer}pre{white-space:pre-wrap;background:#f8f8f8;
padding:6px 8px;margin:4px 0;font-size:12px;max-height:320px;overflow:auto}.pass{color:#1f7a3a;font-weight:600}
.fail{color:#b02a2a;font-weight:600}.adj{color:#a66a00;font-weight:600}.muted{color:#777}
.charts{display:flex;flex-wrap:wrap;gap:18px}.trace{border-left:3px solid #ccc;padding-left:10px;margin:8px 0}
code{font-size:12px}ol.ranked{margin:4px 0 8px;padding-left:24px}ol.ranked li{margin:2px 0}
table.lines{border:none;margin:2px 0;font:12px/1.35 ui-monospace,monospace}table.lines td{border:none;padding:0 6px}
table.lines td.ln{color:#999;text-align:right;user-select:none}.read{max-height:320px;overflow:auto;background:#f8f8f8}
"""


# Shown where a served copy of the report leaves a gold field out (see api/reports.py).
GOLD_HIDDEN_NOTE = (
    "hidden: gold, shown only to requests that carry the API token (or when the server reveals reference answers)"
)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.2f}%"


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def attempt_state(attempt: dict[str, Any]) -> str:
    """An attempt's state spelled out: `not answered (why)`, `answered, not judged`, or `judged: <verdict>`."""
    status = attempt.get("status")
    if status != "answered":
        why = "not attempted" if status is None else str(status)
        return f'<span class="fail">not answered</span> <span class="muted">({escape(why)})</span>'
    verdict = attempt.get("verdict")
    if verdict is None:
        return 'answered, <span class="muted">not judged</span>'
    css = {"pass": "pass", "fail": "fail"}.get(verdict, "adj")
    return f'judged: <span class="{css}">{escape(verdict.replace("_", " "))}</span>'


_CODE = re.compile(r"`([^`]+)`")


def note_html(text: str) -> str:
    """A note's text with its `quoted commands` set as code (no literal backticks on the page)."""
    return _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", escape(text))


def render_html(data: dict[str, Any]) -> str:
    """The whole report as one HTML document."""
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{escape(data['title'])}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape(data['title'])}</h1>",
    ]
    boot = data["bootstrap"]
    parts.append(
        "<p class='muted'>Batch " + ", ".join(escape(b) for b in data["batch_ids"]) + ". Intervals: 95% cluster "
        f"bootstrap over profiles, {boot['resamples']:,} resamples, seed {boot['seed']}. Every number comes from "
        "ToolCall and Judgment nodes of the evidence graph.</p>"
    )
    lead = headline_lines(data)
    if lead:
        parts.append("<h2>Headline</h2>" + "".join(f"<p>{note_html(line)}</p>" for line in lead))
    for note in data["notes"]:
        parts.append(f"<div class='note'>{note_html(note)}</div>")
    parts.append(_summary(data))
    parts.append(_costs(data))
    parts.append(_comparisons(data))
    parts.append(_charts(data))
    parts.append(_quality(data))
    parts.append(_funnel(data))
    parts.append(render_sections_html(data))
    parts.append(_records(data))
    parts.append(_items(data))
    parts.append("</body></html>")
    return "\n".join(parts)


def _memory_note(run: dict[str, Any]) -> str:
    """Which memory system the run read and what building it cost (pairs, LLM calls, tokens, seconds)."""
    system = run.get("memory_system")
    if not system:
        return "memory: none"
    build = run.get("memory_build") or {}
    if not build:
        return f"memory: {system}"
    return (
        f"memory: {system} ({build.get('pairs', 0)} pairs, {build.get('llm_calls', 0)} LLM calls, "
        f"{build.get('tokens_in', 0):,}+{build.get('tokens_out', 0):,} tokens, {build.get('seconds', 0)} s)"
    )


def _costs(data: dict[str, Any]) -> str:
    """Calls, billed tokens and USD per method and role, and per item (USD only with [llm.prices])."""
    rows = "".join(
        "<tr>" + "".join(f"<td{'' if i < 2 else ' class=n'}>{escape(cell)}</td>" for i, cell in enumerate(row)) + "</tr>"
        for row in cost_rows(data["runs"])
    )
    return (
        "<h2>Cost</h2><p class='muted'>Billed tokens (cache hits cost nothing) over every invocation of each run; USD "
        "from [llm.prices] or the roles' price settings, n/a without them.</p><table><tr><th>method</th><th>role</th>"
        "<th>calls</th><th>billed tokens in+out</th><th>cost</th><th>per item</th></tr>" + rows + "</table>"
    )


def _summary(data: dict[str, Any]) -> str:
    rows = []
    for run in data["runs"]:
        m = run["metrics"]
        usage = (run.get("usage") or {}).get("total", {})
        rows.append(
            "<tr>"
            f"<td>{escape(run['label'])}<br>{node_link(run['run_id'])}<br>"
            f"<span class='muted'>{escape(_memory_note(run))}</span></td><td>{escape(run['status'])}</td>"
            f"<td class='n'>{m['n_items']}</td><td class='n'>{m['n_answered']}</td><td class='n'>{escape(errors_cell(m))}</td>"
            f"<td class='n'><b>{_pct(m['accuracy'])}</b><br><span class='muted'>{m['n_pass']}/{m['n_items']}</span></td>"
            f"<td class='n'>{_pct(m.get('accuracy_adjudicated'))}<br>"
            f"<span class='muted'>{m.get('n_adjudicated', 0)} ruled</span></td>"
            f"<td class='n'>{m.get('n_pending', m['n_needs_adjudication'])}<br>"
            f"<span class='muted'>of {m['n_needs_adjudication']}</span></td>"
            f"<td class='n'>{_pct(m['read_recall'])}<br><span class='muted'>n={m['n_read_recall_items']}</span></td>"
            f"<td class='n'>{_pct(m['first_search_hit_rate'])}</td><td class='n'>{_pct(m['search_hit_rate'])}</td>"
            f"<td class='n'>{_num(m['avg_turns'])}</td><td class='n'>{_num(m['avg_tokens'], 0)}</td>"
            f"<td class='n'>{usage.get('calls', 0)} / {usage.get('cache_hits', 0)}<br>"
            f"<span class='muted'>{escape(usd_text((run.get('cost') or {}).get('cost_usd')))}</span></td>"
            "</tr>"
        )
    return (
        "<h2>Summary</h2><table><tr><th>method / run</th><th>status</th><th>items</th><th>answered</th><th>errors</th>"
        "<th>accuracy (raw)</th><th>adjudicated</th><th>pending adj.</th><th>Read Recall</th><th>first-search hit</th><th>search hit</th>"
        "<th>avg turns (incl. final)</th><th>avg tokens</th><th>LLM calls / cached</th></tr>"
        + "".join(rows)
        + "</table><p class='muted'>Accuracy = passes / all items of the run (unjudged and needs_adjudication count "
        "as not passed; raw: human rulings ignored). Adjudicated = the same after each attempt's latest human "
        "ruling (<code>./colabench adjudicate</code>); pending = needs_adjudication verdicts not yet ruled on, of "
        "all needs_adjudication verdicts. Read Recall = mean |gold &cap; read| / |gold| over items with gold documents. Hit rates: a "
        "gold document in the first / any successful knowledge search (kb_search, memkb_search); items without one "
        "count as misses.</p>"
    )


def _gain_rows(comparison: dict[str, Any]) -> list[tuple[str, dict[str, Any], float]]:
    rows: list[tuple[str, dict[str, Any], float]] = []
    for metric, row in comparison["overall"].items():
        scale = 1.0 if metric == "turns" else 100.0
        rows.append((f"{metric} ({row['subset']})", row, scale))
    for grouping, group_rows in comparison["groups"].items():
        for row in group_rows:
            rows.append((f"accuracy, {grouping}: {row['subset']}", row, 100.0))
    for row in comparison["shared_access"]:
        rows.append((f"accuracy, {row['subset']}", row, 100.0))
    return rows


def _excluded_note(comp: dict[str, Any]) -> str:
    return excluded_text(comp.get("excluded_items") or [])


def _comparisons(data: dict[str, Any]) -> str:
    if not data["comparisons"]:
        return "<h2>Paired gains</h2><p class='muted'>One run only: nothing to compare.</p>"
    out = [
        "<h2>Paired gains</h2><p class='muted'>Each gain is method &minus; baseline on the items both runs "
        "answered: above zero, the method did better. Accuracy and recall in percentage points (pp).</p>"
    ]
    colours = method_colours(data["runs"])
    for comp in data["comparisons"]:
        method, baseline = comp["method_label"], comp["baseline_label"]
        title = gain_title(comp)
        out.append(
            f"<h3>{escape(title)}</h3><p class='muted'>Baseline: {escape(baseline)}. {comp['n_common_items']} items "
            f"answered by both runs, {comp['n_clusters']} profile clusters{escape(_excluded_note(comp))}.</p>"
        )
        forest_rows = []
        table = [
            f"<table><tr><th>metric / subset</th><th>n</th><th>{escape(method)} (method)</th>"
            f"<th>{escape(baseline)} (baseline)</th><th>gain = method &minus; baseline [95% CI]</th></tr>"
        ]
        for label, row, scale in _gain_rows(comp):
            unit = "" if scale == 1.0 else " pp"
            gain = row["gain"]
            base = _num(row["baseline"] * scale if row["baseline"] is not None else None)
            meth = _num(row["method"] * scale if row["method"] is not None else None)
            table.append(
                f"<tr><td>{escape(label)}</td><td class='n'>{row['n_items']}</td><td class='n'>{meth}</td>"
                f"<td class='n'>{base}</td><td class='n'>{escape(interval_text(gain, scale, unit))}</td></tr>"
            )
            if scale == 100.0 and gain and gain.get("n_items"):
                if interval_informative(gain):
                    low, high = _nan(gain["low"]) * 100, _nan(gain["high"]) * 100
                else:  # the point estimate only: an interval over so few clusters would mislead
                    label = f"{label}: interval not informative ({gain.get('n_clusters', 0)} clusters)"
                    low = high = _nan(None)
                forest_rows.append((label, gain["estimate"] * 100, low, high, gain["n_items"]))
        table.append("</table>")
        out.append(
            svg.forest(
                f"Paired gains: {title}",
                forest_rows,
                colour=colours.get(comp.get("method_run", "")),
                axis_label=f"gain over {baseline} (pp)",
                series=method,
            )
        )
        out.extend(table)
        if comp["stratified"]:
            out.append(
                "<h3>Stratified common-weight gains (single vs multi fact)</h3><table><tr><th>strata</th>"
                "<th>items</th><th>strata kept</th><th>single-fact gain</th><th>multi-fact gain</th>"
                "<th>multi &minus; single</th></tr>"
            )
            for s in comp["stratified"]:
                unknown = s.get("n_unknown_admission")
                left_out = f" ({unknown} items without an admission path left out)" if unknown else ""
                if not s.get("n_items"):
                    out.append(
                        f"<tr><td>{escape(s['strata'])}</td><td colspan='5'>no stratum holds both groups"
                        f"{escape(left_out)}</td></tr>"
                    )
                    continue
                shown = strata_shown(s)
                out.append(
                    f"<tr><td>{escape(s['strata'] + left_out)}</td><td class='n'>{s['n_items']}</td>"
                    f"<td class='n'>{'-' if shown is None else shown}</td>"
                    f"<td>{escape(interval_text(s['single_fact_gain'], strata=shown))}</td>"
                    f"<td>{escape(interval_text(s['multi_fact_gain'], strata=shown))}</td>"
                    f"<td>{escape(interval_text(s['multi_minus_single'], strata=shown))}</td></tr>"
                )
            out.append("</table>")
        if comp.get("quality_on_split"):
            out.append(
                "<h3>Answer quality where the method passes and the baseline fails (Sec. 6.1)</h3><table><tr>"
                f"<th>dimension</th><th>n</th><th>{escape(method)} (method)</th><th>{escape(baseline)} (baseline)</th>"
                "<th>gain = method &minus; baseline [95% CI]</th></tr>"
            )
            for row in comp["quality_on_split"]:
                out.append(
                    f"<tr><td>{escape(row['subset'])}</td><td class='n'>{row['n_items']}</td>"
                    f"<td class='n'>{_num(row['method'], 3)}</td><td class='n'>{_num(row['baseline'], 3)}</td>"
                    f"<td>{escape(interval_text(row['gain'], 1.0, ''))}</td></tr>"
                )
            out.append("</table>")
    return "".join(out)


def gain_title(comp: dict[str, Any]) -> str:
    """`MemKB − Mem0 + Hybrid`: the heading of a paired comparison, method first."""
    return f"{comp['method_label']} \u2212 {comp['baseline_label']}"


def _nan(value: Any) -> float:
    return float("nan") if value is None else float(value)


def _charts(data: dict[str, Any]) -> str:
    runs = data["runs"]
    colours = method_colours(runs)
    charts = []
    for grouping, title in (("fact_count", "Accuracy by fact count"), ("history_pairs", "Accuracy by history pairs")):
        table = data["groups"].get(grouping, {})
        categories = list(table)
        series = [
            (
                run["label"],
                [table[c][run["run_id"]]["accuracy"] for c in categories],
                [table[c][run["run_id"]]["n"] for c in categories],
            )
            for run in runs
        ]
        charts.append(svg.grouped_bars(title, categories, series, colours=[colours[r["run_id"]] for r in runs]))
    plotted = [
        run
        for run in runs
        if run["metrics"]["avg_tokens"] is not None and run["metrics"]["accuracy"] is not None
    ]
    points = [(run["label"], run["metrics"]["avg_tokens"], run["metrics"]["accuracy"]) for run in plotted]
    charts.append(
        svg.scatter(
            "Accuracy vs tokens per item",
            points,
            x_label="answerer tokens per item",
            y_label="accuracy",
            colours=[colours[r["run_id"]] for r in plotted],
        )
    )
    for run in runs:
        errors = run["metrics"]["errors"]
        cols = [*VISIBILITY_LEVELS] + (["unknown"] if any("unknown" in v for v in errors.values()) else [])
        counts = [[errors.get(cat, {}).get(col, 0) for col in cols] for cat in ERROR_CATEGORIES]
        charts.append(svg.heatmap(f"Error category x visibility: {run['label']}", list(ERROR_CATEGORIES), cols, counts))
    return "<h2>Charts</h2><div class='charts'>" + "".join(f"<div>{c}</div>" for c in charts) + "</div>"


def _quality(data: dict[str, Any]) -> str:
    if not any(run["metrics"]["quality"] for run in data["runs"]):
        return "<h2>Answer quality</h2><p class='muted'>Not judged (run with <code>--judges accuracy,quality,error_analysis</code>).</p>"
    rows = []
    for dim in QUALITY_DIMENSIONS:
        cells = []
        for run in data["runs"]:
            q = run["metrics"]["quality"].get(dim)
            cells.append(
                f"<td class='n'>{q['mean']:.3f} <span class='muted'>(n={int(q['n'])})</span></td>"
                if q
                else "<td>n/a</td>"
            )
        rows.append(f"<tr><td>{escape(dim.replace('_', ' '))}</td>{''.join(cells)}</tr>")
    head = "".join(f"<th>{escape(run['label'])}</th>" for run in data["runs"])
    return f"<h2>Answer quality (1-5, blind judge)</h2><table><tr><th>dimension</th>{head}</tr>{''.join(rows)}</table>"


def _funnel(data: dict[str, Any]) -> str:
    out = [
        "<h2>Evidence funnel</h2><p class='muted'>Per answer requirement, from the graph alone: were its facts "
        "disclosed, remembered by the method's memory, retrieved in the attempt; were its document spans exposed "
        "by a search, read (overlapping lines), cited in the answer. <i>broke at</i> is the first step that failed.</p>"
    ]
    head = "".join(f"<th>{s}</th>" for s in STEPS)
    for run in data["runs"]:
        agg = data["funnel"][run["run_id"]]
        out.append(
            f"<h3>{escape(run['label'])}</h3><table><tr><th>requirements</th><th>n</th>{head}<th>complete</th></tr>"
        )
        for name, block in [("all", agg["all"]), *agg["by_kind"].items()]:
            cells = []
            for step in STEPS:
                c = block["steps"][step]
                applicable = c.get("yes", 0) + c.get("no", 0)
                cells.append(
                    f"<td class='n'>{c.get('yes', 0)}/{applicable}<br><span class='muted'>broke {block['broke_at'][step]}</span></td>"
                    if applicable
                    else "<td class='muted'>n/a</td>"
                )
            out.append(
                f"<tr><td>{escape(name)}</td><td class='n'>{block['n']}</td>{''.join(cells)}"
                f"<td class='n'>{block['broke_at']['complete']}</td></tr>"
            )
        out.append("</table>")
    return "".join(out)


def _records(data: dict[str, Any]) -> str:
    out = ["<h2>Run records</h2>"]
    for run in data["runs"]:
        record = {
            k: run[k]
            for k in (
                "run_id",
                "method",
                "dataset",
                "batch_id",
                "dataset_fingerprint",
                "budget",
                "judges",
                "models",
                "prompt_hashes",
                "seeds",
                "versions",
                "state_summaries",
                "memory_system",
                "memory_build",
                "usage",
            )
        }
        out.append(
            f"<details><summary>{escape(run['label'])}: {node_link(run['run_id'])}</summary>"
            f"<pre>{escape(json.dumps(record, indent=2, sort_keys=True))}</pre></details>"
        )
    return "".join(out)


def _items(data: dict[str, Any]) -> str:
    if not data["items"]:
        return ""
    runs = data["runs"]
    out = ["<h2>Items</h2><p class='muted'>Each row expands to its evidence trace.</p>"]
    redacted = set(data.get("redacted_fields") or ())
    titles = data.get("titles") or {}
    for index, item in enumerate(data["items"]):
        answer_hidden = f"items[{index}].reference_answer" in redacted
        cells = []
        for run in runs:
            attempt = item["attempts"].get(run["run_id"])
            if attempt is None:
                continue
            rr = attempt["read_recall"]
            cells.append(
                f"{escape(run['label'])}: {attempt_state(attempt)} <span class='muted'>(turns "
                f"{attempt['turns'] or '-'}, read recall {'n/a' if rr is None else format(rr, '.0%')})</span>"
            )
        out.append(
            f"<details><summary><code>{escape(item['item_id'])}</code> {escape(item['question'][:120])} &mdash; "
            f"{' &middot; '.join(cells)}</summary>{_trace(item, runs, answer_hidden, titles)}</details>"
        )
    return "".join(out)


def _arguments_text(arguments: dict[str, Any]) -> str:
    """A call's arguments as `name = value` pairs (a query in quotes), not as JSON."""
    parts = []
    for name, value in arguments.items():
        shown = f"&ldquo;{escape(value)}&rdquo;" if isinstance(value, str) else escape(
            ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        )
        parts.append(f"<span class='muted'>{escape(str(name))}</span> {shown}")
    return "; ".join(parts)


def _call_return(call: dict[str, Any], titles: dict[str, Any]) -> str:
    """What the call returned: its view (ranked lists, numbered lines) with titles from the graph; report data
    written before views existed shows the ids it returned and the response text."""
    shown = call.get("shown")
    view = dict(shown) if shown is not None else return_view(
        str(call["tool"]), str(call.get("response") or ""), ok=bool(call["ok"])
    )
    # copies: the report data (written to report.json beside this page) keeps the view as recorded
    if view.get("documents") is not None:
        view["documents"] = [
            {**doc, "title": doc.get("title") or (titles.get(doc["doc_id"]) or {}).get("title")}
            for doc in view["documents"]
        ]
    if view.get("kind") == "read" and not view.get("title"):
        view["title"] = (titles.get(view.get("doc_id", "")) or {}).get("title")
    return render_return_html(view)


def _reference_answer(answer: Any, hidden: bool) -> str:
    """The item's reference answer (gold), or a note that this copy of the report leaves it out."""
    if hidden:
        return f"<p class='muted reference-answer-hidden'><b>Reference answer</b> {escape(GOLD_HIDDEN_NOTE)}</p>"
    if answer is None:
        return "<p class='muted'><b>Reference answer</b> none given</p>"
    return f"<details class='reference-answer'><summary>Reference answer</summary><p>{escape(str(answer))}</p></details>"


def _documents(label: str, ids: list[str], titles: dict[str, Any]) -> str:
    if not ids:
        return ""
    return f"<p><b>{label}:</b></p><ul>" + "".join(f"<li>{title_link(d, titles, show_id=True)}</li>" for d in ids) + "</ul>"


def _trace(
    item: dict[str, Any], runs: list[dict[str, Any]], answer_hidden: bool = False, titles: dict[str, Any] | None = None
) -> str:
    titles = titles or {}
    out = [
        "<div class='trace'>",
        f"<p><b>Item</b> {node_link(item['item_id'])} of profile {node_link(item['profile_id'])}, asked "
        f"{escape(str(item['asked_at']))}</p><p><b>Question.</b> {escape(item['question'])}</p>",
        _reference_answer(item.get("reference_answer"), answer_hidden),
        _documents("Support documents", item["support_doc_ids"], titles),
        _documents("History documents", item.get("history_doc_ids") or [], titles),
        "<h3>Requirements</h3><ul>",
    ]
    for req in item["requirements"]:
        text = escape(req["text"]) if req.get("text") is not None else f"<i class='muted'>{escape(GOLD_HIDDEN_NOTE)}</i>"
        out.append(f"<li>{node_link(req['id'])} {text}")
        if req.get("action"):
            out.append(f"<br><i>action:</i> {escape(req['action'])}")
        for st in req["statements"]:
            out.append(f"<br><i>user statement</i> {node_link(st['id'])}: &ldquo;{escape(st['text'])}&rdquo;")
        for fact in req["facts"]:
            out.append(f"<br><i>condition</i> {node_link(fact['id'])}: {escape(fact['text'])}")
        for span in req["spans"]:
            out.append(
                f"<br><i>knowledge</i> {title_link(span['doc_id'], titles, show_id=True)} lines "
                f"{span['start_line']}-{span['end_line']}"
                f"<pre>{escape(span['text'])}</pre>"
            )
        out.append("</li>")
    out.append("</ul>")
    for run in runs:
        attempt = item["attempts"].get(run["run_id"])
        if attempt is None:
            continue
        out.append(
            f"<h3>{escape(run['label'])}: {attempt_state(attempt)} {node_link(attempt['attempt_id'])}</h3>"
        )
        if attempt.get("error"):
            out.append(f"<div class='note'>attempt error: {escape(attempt['error'])}</div>")
        for call in attempt.get("calls", []):
            status = "ok" if call["ok"] else f"<span class='fail'>failed: {escape(str(call['error']))}</span>"
            out.append(
                f"<details><summary>round {call['round']}.{call['ordinal'] + 1} <b>{escape(call['tool'])}</b> "
                f"{_arguments_text(call['arguments'])} {status}{exchange_link(call.get('exchange'))}</summary>"
                f"{_call_return(call, titles)}</details>"
            )
        if attempt.get("answer") is not None:
            out.append(
                f"<p><b>Answer</b> ({escape(str(attempt.get('finish')))}, {attempt['turns']} turns)"
                f"{exchange_link(attempt.get('exchange'))}</p>"
            )
            out.append(f"<pre>{escape(attempt['answer'])}</pre>")
        for j in attempt.get("judgments", []):
            label = j["verdict"] or (f"score {j['score']:g}" if j["score"] is not None else "")
            if j["kind"] == "error_analysis" and j["error_category"]:
                label = f"{j['error_category']} / {j['visibility']}"
            validity = "" if j["valid"] else " <span class='adj'>(invalid judge reply)</span>"
            out.append(
                f"<p><i>{escape(j['kind'])}</i>: <b>{escape(str(label))}</b>{validity} <span class='muted'>"
                f"({escape(str(j['judge_model']))}, {escape(str(j['prompt_name']))} {escape(str(j['prompt_sha256'])[:12])})"
                f"</span>{exchange_link(j.get('exchange'))}<br>{escape(str(j['rationale'] or ''))}</p>"
            )
        if attempt.get("funnel"):
            out.append(
                f"<table><tr><th>requirement</th>{''.join(f'<th>{s}</th>' for s in STEPS)}<th>broke at</th></tr>"
            )
            for f in attempt["funnel"]:
                cells = "".join(f"<td>{escape(f['steps'][s])}</td>" for s in STEPS)
                out.append(
                    f"<tr><td>{escape(f['requirement_id'])}</td>{cells}<td>{escape(str(f['broke_at'] or '-'))}</td></tr>"
                )
            out.append("</table>")
    out.append("</div>")
    return "".join(out)
