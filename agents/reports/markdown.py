"""The Markdown report: the same numbers as the HTML report, without the traces (those live in the JSON)."""

from __future__ import annotations

from typing import Any

from agents.metrics.comparison import interval_text, strata_shown
from agents.metrics.funnel import STEPS
from agents.prompts.judging import QUALITY_DIMENSIONS
from agents.reports.cells import errors_cell, excluded_text
from agents.reports.costs import cost_rows
from agents.reports.headline import headline_lines
from agents.reports.sections import render_sections_markdown


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.2f}%"


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def render_markdown(data: dict[str, Any]) -> str:
    """The report as Markdown: title, headline and notes, the summary table, the paired gains, answer quality,
    the evidence funnel, the errors of failed answers, cost, the registered sections, and the run records."""
    lines = [
        *_opening_lines(data),
        *_summary_lines(data),
        *(line for comp in data["comparisons"] for line in _comparison_lines(comp)),
        *_quality_lines(data),
        *_funnel_lines(data),
        *_error_lines(data),
        *_cost_lines(data),
        *render_sections_markdown(data),
        *_run_record_lines(data),
    ]
    return "\n".join(lines) + "\n"


def _opening_lines(data: dict[str, Any]) -> list[str]:
    """The title, the batch and bootstrap line, the headline (when there is one) and the notes."""
    boot = data["bootstrap"]
    lines = [
        f"# {data['title']}",
        "",
        f"Batch {', '.join(data['batch_ids'])}. Intervals: 95% cluster bootstrap over profiles, "
        f"{boot['resamples']:,} resamples, seed {boot['seed']}.",
        "",
    ]
    lead = headline_lines(data)
    if lead:
        lines += ["## Headline", "", *lead, ""]
    lines.extend(f"> **Note:** {note}" for note in data["notes"])
    return lines


def _summary_lines(data: dict[str, Any]) -> list[str]:
    """The summary table: one row of headline metrics per run."""
    lines = [
        "",
        "## Summary",
        "",
        "| method | memory | run | status | items | errors | accuracy (raw) | adjudicated | pending adj. | "
        "Read Recall | first-search hit | search hit | avg turns | avg tokens |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run in data["runs"]:
        m = run["metrics"]
        lines.append(
            f"| {run['label']} | {run.get('memory_system') or '-'} | `{run['run_id']}` | {run['status']} | "
            f"{m['n_items']} | {errors_cell(m)} | {_pct(m['accuracy'])} "
            f"({m['n_pass']}/{m['n_items']}) | {_pct(m.get('accuracy_adjudicated'))} | "
            f"{m.get('n_pending', m['n_needs_adjudication'])} of {m['n_needs_adjudication']} | "
            f"{_pct(m['read_recall'])} | "
            f"{_pct(m['first_search_hit_rate'])} | {_pct(m['search_hit_rate'])} | {_num(m['avg_turns'])} | "
            f"{_num(m['avg_tokens'], 0)} |"
        )
    return lines


def _comparison_lines(comp: dict[str, Any]) -> list[str]:
    """One paired comparison: its heading and a table of gains overall, per grouping, on shared access, the
    stratified contrasts and quality on the split."""
    lines = [
        "",
        f"## Paired gains: {comp['method_label']} \u2212 {comp['baseline_label']}",
        "",
        f"Gain = method ({comp['method_label']}) \u2212 baseline ({comp['baseline_label']}); "
        f"{comp['n_common_items']} items answered by both runs, {comp['n_clusters']} profile clusters"
        + excluded_text(comp.get("excluded_items") or [])
        + ".",
        "",
        "| metric | subset | n | gain = method \u2212 baseline [95% CI] |",
        "| --- | --- | ---: | --- |",
    ]
    for metric, row in comp["overall"].items():
        scale, unit = (1.0, "") if metric == "turns" else (100.0, " pp")
        lines.append(f"| {metric} | {row['subset']} | {row['n_items']} | {interval_text(row['gain'], scale, unit)} |")
    for grouping, rows in comp["groups"].items():
        for row in rows:
            lines.append(
                f"| accuracy | {grouping}: {row['subset']} | {row['n_items']} | {interval_text(row['gain'])} |"
            )
    for row in comp["shared_access"]:
        lines.append(f"| accuracy | {row['subset']} | {row['n_items']} | {interval_text(row['gain'])} |")
    lines += _stratified_lines(comp["stratified"])
    for row in comp.get("quality_on_split") or []:
        lines.append(f"| quality | {row['subset']} | {row['n_items']} | {interval_text(row['gain'], 1.0, '')} |")
    return lines


def _stratified_lines(stratified: list[dict[str, Any]]) -> list[str]:
    """The multi - single fact contrast per stratification, and the items it left out for want of an
    admission path."""
    lines = []
    for s in stratified:
        if s.get("n_items"):
            shown = strata_shown(s)
            lines.append(
                f"| stratified ({s['strata']}) | multi - single fact"
                + (f", {shown} strata" if shown is not None else "")
                + f" | {s['n_items']} | {interval_text(s['multi_minus_single'], strata=shown)} |"
            )
        if s.get("n_unknown_admission"):
            lines.append(
                f"| stratified ({s['strata']}) | items without an admission path, left out | "
                f"{s['n_unknown_admission']} | - |"
            )
    return lines


def _quality_lines(data: dict[str, Any]) -> list[str]:
    """Mean answer quality per dimension and run (nothing when no run was judged for quality)."""
    if not any(run["metrics"]["quality"] for run in data["runs"]):
        return []
    lines = [
        "",
        "## Answer quality (1-5)",
        "",
        "| dimension | " + " | ".join(r["label"] for r in data["runs"]) + " |",
    ]
    lines.append("| --- |" + " ---: |" * len(data["runs"]))
    for dim in QUALITY_DIMENSIONS:
        cells = []
        for run in data["runs"]:
            q = run["metrics"]["quality"].get(dim)
            cells.append(f"{q['mean']:.3f} (n={int(q['n'])})" if q else "n/a")
        lines.append(f"| {dim} | " + " | ".join(cells) + " |")
    return lines


def _funnel_lines(data: dict[str, Any]) -> list[str]:
    """The evidence funnel per run (requirements reaching each step), then the items each run left out of it."""
    lines = ["", "## Evidence funnel (requirements reaching each step / applicable; answered items only)", ""]
    lines.append("| method | n | " + " | ".join(STEPS) + " | complete |")
    lines.append("| --- | ---: |" + " ---: |" * (len(STEPS) + 1))
    for run in data["runs"]:
        block = data["funnel"][run["run_id"]]["all"]
        cells = []
        for step in STEPS:
            c = block["steps"][step]
            applicable = c.get("yes", 0) + c.get("no", 0)
            cells.append(f"{c.get('yes', 0)}/{applicable}" if applicable else "n/a")
        lines.append(
            f"| {run['label']} | {block['n']} | " + " | ".join(cells) + f" | {block['broke_at']['complete']} |"
        )
    for run in data["runs"]:
        left_out = data["funnel"][run["run_id"]].get("left_out_items") or []
        if left_out:
            lines.append(
                f"\n{run['label']}: {len(left_out)} item(s) left out of the funnel (not answered): "
                + ", ".join(f"{i['item_id']} ({i['status']})" for i in left_out)
            )
    return lines


def _error_lines(data: dict[str, Any]) -> list[str]:
    """The errors of failed answers per run that has any (main category x visibility)."""
    lines = ["", "## Errors of failed answers (main category x visibility)", ""]
    for run in data["runs"]:
        errors = run["metrics"]["errors"]
        if not errors:
            continue
        lines.append(f"- {run['label']}: " + "; ".join(f"{cat}: {cells}" for cat, cells in sorted(errors.items())))
    return lines


def _cost_lines(data: dict[str, Any]) -> list[str]:
    """The cost table: calls, billed tokens and cost per run and role."""
    lines = ["", "## Cost", "", "| method | role | calls | billed tokens in+out | cost | per item |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    lines += ["| " + " | ".join(row) + " |" for row in cost_rows(data["runs"])]
    return lines


def _run_record_lines(data: dict[str, Any]) -> list[str]:
    """What each run was made from: its dataset fingerprint, models and prompt hashes."""
    lines = ["", "## Run records", ""]
    for run in data["runs"]:
        models = ", ".join(f"{role} {info.get('model')}" for role, info in run["models"].items())
        lines.append(
            f"- `{run['run_id']}`: dataset fingerprint `{run['dataset_fingerprint'][:16]}`, models: {models}; "
            f"prompts: " + ", ".join(f"{n} {r['sha256'][:12]}" for n, r in sorted(run["prompt_hashes"].items()))
        )
    return lines
