"""The memory-quality report: per system, the no-LLM coverage figures and the judged tables (integrity,
accuracy, update, qa; "all" and "valid" denominators; per fact kind or question type) with one row per
verdict linking the fact, question and memory it judged into the graph browser. `./colabench eval memory`
writes it as a report of kind `memory_quality`; evaluation reports show the same tables as a section
(agents/reports/sections/)."""

from __future__ import annotations

import time
from html import escape
from typing import Any

from neo4j import Driver

from agents.memory_quality.coverage import summarise_coverage
from agents.memory_quality.points import load_fact_points, load_memory_rows, load_turn_counts
from agents.memory_quality.questions import load_questions
from agents.memory_quality.scores import CATEGORY_AXES, load_verdicts, score_tables

NEEDS_LLM_NOTE = (
    "the judged part (integrity, accuracy, update, qa) needs an LLM for the `judge` role: set COLABENCH_LLM_BASE_URL "
    "(or COLABENCH_LLM_JUDGE_BASE_URL) and a model; only the no-LLM part is shown"
)
_CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#222;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ddd;padding:4px 7px;
text-align:left;vertical-align:top}th{background:#f5f5f5}td.n{text-align:right}.note{background:#fff6e0;
border:1px solid #f0d48a;padding:8px 12px;margin:6px 0}.muted{color:#777}code{font-size:12px}"""


def system_entry(
    driver: Driver, database: str, system: str, profile_ids: list[str], *, max_rows: int | None = None
) -> dict[str, Any]:
    """One system's coverage, tables and verdict rows over these profiles (no LLM)."""
    started = time.perf_counter()
    facts = load_fact_points(driver, database, system, profile_ids)
    memories = load_memory_rows(driver, database, system, profile_ids)
    turns = load_turn_counts(driver, database, system, profile_ids)
    coverage = summarise_coverage(system, profile_ids, facts, memories, turns)
    coverage.seconds = round(time.perf_counter() - started, 3)  # as compute_coverage measures it
    questions = load_questions(driver, database, profile_ids)
    tables, rows = score_tables(facts, memories, load_verdicts(driver, database, system, profile_ids), questions)
    rows.sort(key=lambda r: (r["axis"], r["valid"], r["score"] if r["score"] is not None else 3, r["judgment_id"]))
    return {
        "system": system,
        "profile_ids": profile_ids,
        "coverage": coverage.model_dump(),
        "tables": [t.model_dump() for t in tables],
        "memory_judgments": rows[:max_rows] if max_rows is not None else rows,
        "n_judgment_rows": len(rows),
    }


def build_memory_quality_data(
    driver: Driver,
    database: str,
    system: str,
    dataset: str,
    profile_ids: list[str],
    *,
    judged: dict[str, Any] | None,
    notes: list[str],
) -> dict[str, Any]:
    entry = system_entry(driver, database, system, profile_ids)
    all_notes = list(notes)
    if judged is None:
        all_notes.append(NEEDS_LLM_NOTE)
    return {
        "kind": "memory_quality",
        "title": f"Memory quality: {system} on {dataset} ({len(profile_ids)} profile(s))",
        "datasets": [dataset],
        "batch_ids": [],
        "judged": judged,
        "systems": [entry],
        "notes": all_notes,
    }


# --- rendering ------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _link(node_id: str | None) -> str:
    if not node_id:
        return ""
    from urllib.parse import quote

    return f'<a href="/browser#node={quote(node_id, safe="")}"><code>{escape(node_id)}</code></a>'


def _coverage_rows(c: dict[str, Any]) -> list[tuple[str, str]]:
    t = c["turns"]
    mean = t["mean_per_user_turn"]
    return [
        ("expected memory points (facts with a disclosing turn)", f"{c['n_points']} of {c['n_facts']} facts"),
        ("remembered from a disclosing turn", f"{c['n_remembered']} ({_pct(c['recall'])})"),
        ("memories", str(c["n_memories"])),
        ("memories derived from no disclosing turn", f"{c['n_unanchored']} ({_pct(c['unanchored_share'])})"),
        (
            "memories per user turn (mean / max per turn)",
            f"{'n/a' if mean is None else f'{mean:.2f}'} / {t['max_per_turn']}",
        ),
        ("turns with a memory", f"{t['turns_with_memories']} of {t['n_turns']}"),
        ("update points", str(c["n_update_points"])),
        ("computed in", f"{c['seconds']:.2f} s"),
    ]


_AXIS_TITLES = {
    "integrity": "Integrity (0/1/2 per expected memory point)",
    "accuracy": "Accuracy (0/1/2 per extracted memory; in gold = belongs to the gold facts)",
    "update": "Update (per superseding fact)",
    "qa": "QA (per question answered from the memories only; kind = question type)",
}


def axis_header(axis: str) -> list[str]:
    head = ["kind", "n all", "n valid", "invalid", "unjudged"]
    if axis in CATEGORY_AXES:
        return head + [f"{c} all / valid" for c in CATEGORY_AXES[axis]]
    head += ["0 / 1 / 2", "score all", "score valid", "score 2 all", "score 2 valid"]
    return head + (["in gold all", "in gold valid"] if axis == "accuracy" else [])


def axis_cells(axis: str, r: dict[str, Any]) -> list[str]:
    cells = [r["kind"], str(r["n_all"]), str(r["n_valid"]), str(r["n_invalid"]), str(r["n_unjudged"])]
    if axis in CATEGORY_AXES:
        return cells + [
            f"{_pct(r['rates_all'].get(c))} / {_pct(r['rates_valid'].get(c))} ({r['counts'].get(c, 0)})"
            for c in CATEGORY_AXES[axis]
        ]
    counts = r["counts"]
    cells += [
        f"{counts.get('0', 0)} / {counts.get('1', 0)} / {counts.get('2', 0)}",
        _pct(r["score_all"]),
        _pct(r["score_valid"]),
        _pct(r["full_all"]),
        _pct(r["full_valid"]),
    ]
    return cells + ([_pct(r["in_gold_all"]), _pct(r["in_gold_valid"])] if axis == "accuracy" else [])


def _verdict_text(row: dict[str, Any]) -> str:
    if not row["valid"]:
        return "invalid reply"
    if row["axis"] in CATEGORY_AXES:
        return str(row["category"])
    gold = "" if row["in_gold"] is None else (" in gold" if row["in_gold"] else " not in gold")
    return f"{row['score']}{gold}"


def systems_html(systems: list[dict[str, Any]], heading: str = "h2") -> str:
    parts = []
    sub = "h3" if heading == "h2" else "h4"
    for s in systems:
        c = s["coverage"]
        parts.append(f"<{heading}>Memory quality: {escape(s['system'])}</{heading}>")
        parts.append(f"<{sub}>No-LLM coverage (from the graph)</{sub}><table>")
        parts += [f"<tr><th>{escape(k)}</th><td class='n'>{escape(v)}</td></tr>" for k, v in _coverage_rows(c)]
        parts.append(
            "</table><table><tr><th>fact kind</th><th>facts</th><th>expected points</th>"
            "<th>remembered</th><th>recall</th><th>memories</th></tr>"
        )
        for k in c["per_kind"]:
            parts.append(
                f"<tr><td>{escape(k['kind'])}</td><td class='n'>{k['n_facts']}</td><td class='n'>{k['n_points']}</td>"
                f"<td class='n'>{k['n_remembered']}</td><td class='n'>{_pct(k['recall'])}</td>"
                f"<td class='n'>{k['n_memories']}</td></tr>"
            )
        parts.append("</table>")
        if c["forgotten"]:
            parts.append(
                "<details><summary>expected points never remembered from their disclosing turn "
                f"({c['n_points'] - c['n_remembered']})</summary><ul>"
            )
            parts += [
                f"<li>{_link(f['fact_id'])} <span class='muted'>{escape(f['kind'])}</span> {escape(f['text'])}</li>"
                for f in c["forgotten"]
            ]
            parts.append("</ul></details>")
        if c["unanchored"]:
            parts.append(
                f"<details><summary>memories derived from no disclosing turn ({c['n_unanchored']})</summary><ul>"
            )
            parts += [f"<li>{_link(m['memory_id'])} {escape(m['text'])}</li>" for m in c["unanchored"]]
            parts.append("</ul></details>")
        if not s["tables"]:
            parts.append("<p class='muted'>No memory-judge verdicts for these profiles yet.</p>")
        for table in s["tables"]:
            axis = table["axis"]
            parts.append(f"<{sub}>{escape(_AXIS_TITLES[axis])}</{sub}>")
            parts.append(
                "<p class='muted'>judge "
                + escape(", ".join(table["judge_models"]))
                + "; prompt sha256 "
                + escape(", ".join(h[:12] for h in table["prompt_sha256"]))
                + "</p><table><tr>"
            )
            parts += [f"<th>{escape(h)}</th>" for h in axis_header(axis)]
            parts.append("</tr>")
            for r in table["rows"]:
                parts.append("<tr>" + "".join(f"<td>{escape(x)}</td>" for x in axis_cells(axis, r)) + "</tr>")
            parts.append("</table>")
        if s["memory_judgments"]:
            parts.append(
                f"<details><summary>verdicts ({s['n_judgment_rows']})</summary><table><tr><th>axis</th>"
                "<th>verdict</th><th>fact / question</th><th>memory</th><th>kind</th><th>reason</th></tr>"
            )
            for r in s["memory_judgments"]:
                reason = "<span class='muted'>hidden: gold</span>" if r["reason"] is None else escape(r["reason"])
                parts.append(
                    f"<tr><td>{_link(r['judgment_id'])}<br>{escape(r['axis'])}</td><td>{escape(_verdict_text(r))}</td>"
                    f"<td>{_link(r['fact_id'] or r.get('item_id'))}</td><td>{_link(r['memory_id'])}</td>"
                    f"<td>{escape(r['kind'])}</td>"
                    f"<td>{reason}</td></tr>"
                )
            parts.append("</table></details>")
    return "\n".join(parts)


def systems_markdown(systems: list[dict[str, Any]], heading: str = "##") -> list[str]:
    lines: list[str] = []
    for s in systems:
        c = s["coverage"]
        lines += [f"{heading} Memory quality: {s['system']}", "", "| no-LLM coverage | |", "| --- | ---: |"]
        lines += [f"| {k} | {v} |" for k, v in _coverage_rows(c)]
        lines += [
            "",
            "| fact kind | facts | expected points | remembered | recall | memories |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {k['kind']} | {k['n_facts']} | {k['n_points']} | {k['n_remembered']} | {_pct(k['recall'])} | "
            f"{k['n_memories']} |"
            for k in c["per_kind"]
        ]
        if not s["tables"]:
            lines += ["", "No memory-judge verdicts for these profiles yet."]
        for table in s["tables"]:
            head = axis_header(table["axis"])
            lines += [
                "",
                f"{_AXIS_TITLES[table['axis']]} (judge {', '.join(table['judge_models'])})",
                "",
                "| " + " | ".join(head) + " |",
                "|" + " --- |" * len(head),
            ]
            lines += ["| " + " | ".join(axis_cells(table["axis"], r)) + " |" for r in table["rows"]]
        lines.append("")
    return lines


def render_memory_quality_html(data: dict[str, Any]) -> str:
    notes = "".join(f"<div class='note'>{escape(n)}</div>" for n in data["notes"])
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{escape(data['title'])}</title>"
        f"<style>{_CSS}</style></head><body><h1>{escape(data['title'])}</h1>{notes}"
        + systems_html(data["systems"])
        + "</body></html>"
    )


def render_memory_quality_markdown(data: dict[str, Any]) -> str:
    lines = [f"# {data['title']}", ""]
    lines += [f"> note: {n}" for n in data["notes"]]
    return "\n".join([*lines, "", *systems_markdown(data["systems"])]) + "\n"
