"""Report section "Memory systems QA line": every `eval qa --system` run in the graph, grouped by dataset and
question set so systems run on the same questions stand side by side: J (mean ± std over judge runs), F1
and BLEU-1 per category with category 5 (adversarial) apart as the abstention rate, search latency, memory
tokens fed, the LLM cost of adding memories, and the questions where the systems' majority verdicts differ,
each answer linked to its exact request and its verdicts to theirs. No gold: no reference answer and no
judge rationale is shown."""

from __future__ import annotations

from html import escape
from typing import Any

from agents.reports.html import exchange_link
from agents.reports.sections import ReportSection, SectionContext, register_section


def collect_groups(driver: Any, database: str) -> list[dict[str, Any]]:
    """JSON-able groups of runs (per-question rows left out: they hold the gold answers)."""
    from agents.qa.memory_systems_summary import collect_memory_runs
    from graph.store import EventStore

    groups = collect_memory_runs(EventStore(driver, database, None))
    return [
        {
            "dataset": g["dataset"],
            "n_items": g["n_items"],
            "runs": [s.model_dump(mode="json", exclude={"rows"}) for s in g["runs"]],
            "disagreements": [d.model_dump(mode="json") for d in g["disagreements"]],
            "notes": list(g.get("notes", [])),
        }
        for g in groups
    ]


def _collect(context: SectionContext) -> Any:
    groups = collect_groups(context.driver, context.database)
    return {"groups": groups} if groups else None


def _get(run: Any, name: str) -> Any:
    return run.get(name) if isinstance(run, dict) else getattr(run, name)


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


def _j(c: Any) -> str:
    c = _plain(c)
    if not c or c.get("j_mean") is None:
        return "-"
    std = c.get("j_std")
    return f"{c['j_mean'] * 100:.2f}" + (f" ± {std * 100:.2f}" if std is not None else "")


def _score(value: Any) -> str:
    return "-" if value is None else f"{value * 100:.2f}"


def _ms(value: Any) -> str:
    return "-" if value is None else f"{value:,.1f}"


def _bar(value: Any) -> str:
    if value is None:
        return ""
    width = max(0.0, min(1.0, float(value))) * 80
    return f'<svg width="82" height="8"><rect width="{width:.1f}" height="8" fill="#4c78a8"/></svg>'


def memory_systems_html(groups: list[dict[str, Any]], _report: dict[str, Any] | None = None) -> str:
    parts = ["<h2>Memory systems QA line (eval qa --system)</h2>"]
    if not groups:
        parts.append('<p class="muted">No memory-systems QA run in the graph.</p>')
    for group in groups:
        runs = [_plain(r) for r in group["runs"]]
        parts.append(
            f"<h3>{escape(str(group['dataset']))} ({group['n_items']} questions)</h3><table><tr><th>category</th>"
        )
        parts += [
            f"<th>{escape(r['label'])}<br><small>k={r['k']}, {r['judge_runs']} judge run(s)</small></th>" for r in runs
        ]
        parts.append("</tr>")
        labels = list(dict.fromkeys(c["label"] for r in runs for c in [*r["categories"], r["overall"]] if c))
        for label in labels:
            parts.append(f"<tr><td>{escape(label)} (J)</td>")
            for r in runs:
                found = next((c for c in [*r["categories"], r["overall"]] if c and c["label"] == label), None)
                parts.append(f"<td>{_j(found)} {_bar(found and found['j_mean'])}</td>")
            parts.append("</tr>")
        rows = [
            ("adversarial: abstention rate", lambda r: _j(r["adversarial"])),
            ("F1 (1-4)", lambda r: _score(r["overall"] and r["overall"]["f1"])),
            ("BLEU-1 (1-4)", lambda r: _score(r["overall"] and r["overall"]["bleu1"])),
            ("search p50 / p95 ms", lambda r: f"{_ms(r['search_ms_p50'])} / {_ms(r['search_ms_p95'])}"),
            ("memory tokens per question", lambda r: f"{r['memory_tokens_mean'] or 0:,.0f}"),
            ("adding memories: LLM calls", lambda r: f"{r['build'].get('llm_calls', 0):,}"),
            (
                "adding memories: tokens in + out",
                lambda r: f"{r['build'].get('tokens_in', 0) + r['build'].get('tokens_out', 0):,}",
            ),
            ("k from", lambda r: escape(r["k_source"])),
        ]
        for name, cell in rows:
            parts.append(f"<tr><td>{escape(name)}</td>" + "".join(f"<td>{cell(r)}</td>" for r in runs) + "</tr>")
        parts.append("</table>")
        parts += [f'<p class="muted">note: {escape(n)}</p>' for n in group.get("notes", [])]
        split = group["disagreements"]
        if len(runs) > 1:
            parts.append(f"<p>{len(split)} question(s) where the systems' majority verdicts differ.</p>")
        if split:
            parts.append(
                "<table><tr><th>question</th>" + "".join(f"<th>{escape(r['label'])}</th>" for r in runs) + "</tr>"
            )
            for d in split:
                d = _plain(d)
                parts.append(f"<tr><td style='text-align:left'>[{escape(d['category'])}] {escape(d['question'])}</td>")
                for r in runs:
                    v = d["by_system"].get(r["label"])
                    if v is None:
                        parts.append("<td>-</td>")
                        continue
                    verdict_links = "".join(exchange_link(x) for x in v["verdict_exchanges"].values())
                    parts.append(
                        f"<td style='text-align:left'>{'CORRECT' if v['correct'] else 'WRONG'} "
                        f"({v['runs_correct']}/{v['runs']}): {escape(str(v['answer'] or ''))}"
                        f"{exchange_link(v['answer_exchange'])}<br><small>verdicts:{verdict_links}; "
                        f"{len(v['memory_ids'])} memories fed</small></td>"
                    )
                parts.append("</tr>")
            parts.append("</table>")
    return "".join(parts)


def _html(data: Any, report: dict[str, Any]) -> str:
    return memory_systems_html(data["groups"], report)


def _markdown(data: Any, _report: dict[str, Any]) -> list[str]:
    lines = ["## Memory systems QA line (eval qa --system)", ""]
    for group in data["groups"]:
        runs = group["runs"]
        lines += [f"### {group['dataset']} ({group['n_items']} questions)", ""]
        lines.append("| | " + " | ".join(r["label"] for r in runs) + " |")
        lines.append("| --- |" + " ---: |" * len(runs))
        lines.append("| J (1-4) | " + " | ".join(_j(r["overall"]) for r in runs) + " |")
        lines.append("| abstention (5) | " + " | ".join(_j(r["adversarial"]) for r in runs) + " |")
        lines.append("| F1 | " + " | ".join(_score(r["overall"] and r["overall"]["f1"]) for r in runs) + " |")
        lines.append("| BLEU-1 | " + " | ".join(_score(r["overall"] and r["overall"]["bleu1"]) for r in runs) + " |")
        lines.append("| search p50 ms | " + " | ".join(_ms(r["search_ms_p50"]) for r in runs) + " |")
        lines += ["", f"{len(group['disagreements'])} question(s) where the majority verdicts differ.", ""]
    return lines


register_section(
    ReportSection(
        name="qa_memory_systems",
        title="Memory systems QA line",
        order=61,
        collect=_collect,
        html=_html,
        markdown=_markdown,
    )
)
