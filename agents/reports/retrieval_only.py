"""The report of `./colabench run` when no LLM is configured: the retrieval line (query room's evaluation, no
LLM) of the recipes the chosen methods use, labelled retrieval-only on every page, and saying which parts of a
run were skipped (state summaries, answers, judging) and why."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from agents.methods.registry import MethodSpec
from agents.reports.html import node_link
from graph.store import EventStore

KS = (1, 3, 5, 10, 20)
SKIPPED = (
    "state summaries S(H) (need the `state` LLM role)",
    "answers (need the `answerer` LLM role)",
    "judging: accuracy, quality, error analysis (need the `judge` LLM role)",
)
_KINDS = {"bundle": "bundle", "longmemeval": "longmemeval", "locomo": "locomo", "ikat": "ikat"}


def dataset_source(dataset: str) -> tuple[str, Path]:
    """(evaluation kind, path) for `sample` or a path; the retrieval line needs the input files."""
    from graph.paths import REPO_ROOT
    from ingest.pipeline import detect_format

    path = REPO_ROOT / "samples" / "colabench-sample" if dataset == "sample" else Path(dataset)
    if not path.exists():
        raise ValueError(
            f"the retrieval line reads the dataset's files: pass --dataset sample or a path, not {dataset!r}"
        )
    fmt = detect_format(path)
    kind = _KINDS.get(fmt)
    if kind is None:
        raise ValueError(f"{path} is a {fmt} input, which has no items to evaluate")
    return kind, path


def method_recipes(specs: list[MethodSpec]) -> list[str]:
    """The retrieval recipes the methods' search tools run, in order, without repeats."""
    names: list[str] = []
    for spec in specs:
        for binding in spec.tools:
            if binding.recipe and binding.recipe not in names:
                names.append(binding.recipe)
    return names


def build_retrieval_report(
    store: EventStore,
    dataset: str,
    specs: list[MethodSpec],
    *,
    items: int | None,
    item_ids: list[str],
    console: Any,
) -> dict[str, Any]:
    """Run the retrieval line and return the report data (kind `retrieval`)."""
    from graph.embeddings import CachedEncoder
    from query.evaluation.pipeline import run_retrieval_eval
    from query.recipes import get_recipe
    from query.retriever import Retriever

    kind, path = dataset_source(dataset)
    recipes = [get_recipe(name) for name in method_recipes(specs)]
    notes = []
    if item_ids:
        notes.append(f"--item {', '.join(item_ids)} is ignored by the retrieval line, which evaluates every item")
    if items is not None:
        notes.append(f"--items {items}: the retrieval line takes a stable subset of {items} items (by id hash)")
    assert isinstance(store.encoder, CachedEncoder)
    retriever = Retriever(store.driver, store.encoder, store.database)
    try:
        from agents.memory.rankers import sdk_rankers

        with (
            console.status(f"retrieval line: {', '.join(r.name for r in recipes)} on {path} ..."),
            sdk_rankers(store, {r.memory_system for r in recipes if r.needs_profile}),
        ):
            report = run_retrieval_eval(store, retriever, kind, path, recipes, KS, limit=items)
    finally:
        retriever.close()
    return {
        "kind": "retrieval",
        "title": f"RETRIEVAL-ONLY report: {', '.join(s.name for s in specs)} on {report.dataset} (no LLM configured)",
        "retrieval_only": True,
        "skipped": list(SKIPPED),
        "methods": [{"name": s.name, "label": s.label, "recipes": method_recipes([s])} for s in specs],
        "notes": notes + list(report.notes),
        "evaluation": report.model_dump(mode="json"),
    }


def _summary_tables(evaluation: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) per (line, level): one row per recipe and metric family, one column per k."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for s in evaluation["summaries"]:
        groups.setdefault((s["line"], s["level"]), []).append(s)
    tables = []
    for (line, level), summaries in groups.items():
        names = list(dict.fromkeys(n for s in summaries for n in s["micro"]))
        families = list(dict.fromkeys(n.partition("@")[0] for n in names if "@" in n))
        cuts = sorted({int(n.partition("@")[2]) for n in names if n.partition("@")[2].isdigit()})
        header = ["recipe", "n", "metric", *[f"@{c}" for c in cuts]]
        rows = []
        for s in summaries:
            for family in families:
                cells = [f"{s['micro'][f'{family}@{c}']:.3f}" if f"{family}@{c}" in s["micro"] else "" for c in cuts]
                if any(cells):
                    rows.append([s["recipe"], str(s["n_items"]), family, *cells])
        tables.append((f"{line} line, {level} level (micro means)", header, rows))
    return tables


def render_retrieval_html(data: dict[str, Any]) -> str:
    ev = data["evaluation"]
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{escape(data['title'])}</title><style>"
        "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px}"
        "table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ddd;padding:4px 7px}"
        "th{background:#f5f5f5}.banner{background:#fdecea;border:2px solid #d9534f;padding:12px 16px;font-size:15px}"
        "pre{white-space:pre-wrap;background:#f8f8f8;padding:6px}.muted{color:#777}</style></head><body>",
        "<div class='banner'><b>RETRIEVAL-ONLY REPORT.</b> No LLM is configured, so this is not an evaluation of "
        "answers: there is no accuracy, no judging and no state summary. It measures the retrieval recipes the "
        "chosen methods use, with each item's question as the query.</div>",
        f"<h1>{escape(data['title'])}</h1>",
        "<h2>Skipped</h2><ul>" + "".join(f"<li>{escape(s)}</li>" for s in data["skipped"]) + "</ul>",
        "<p>Set <code>COLABENCH_LLM_BASE_URL</code> and <code>COLABENCH_LLM_MODEL</code> (or <code>[llm]</code> in "
        "colabench.toml) and run the same command again for the full evaluation.</p>",
        "<h2>Methods and their recipes</h2><ul>"
        + "".join(
            f"<li>{escape(m['label'])} ({escape(m['name'])}): {', '.join(m['recipes'])}</li>" for m in data["methods"]
        )
        + "</ul>",
    ]
    for note in data["notes"]:
        parts.append(f"<p class='muted'>note: {escape(str(note))}</p>")
    parts.append(
        f"<p class='muted'>Dataset {escape(ev['dataset'])} ({escape(ev['kind'])}, {escape(ev['path'])}); corpus: "
        f"{escape(str(ev['corpus']))}; encoder {escape(ev['encoder_id'])}; recall_any / recall_all / NDCG use "
        "LongMemEval's definitions; first_search_hit is a gold document among the 5 documents of the first "
        "search.</p>"
    )
    for title, header, rows in _summary_tables(ev):
        parts.append(
            f"<h2>{escape(title)}</h2><table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>"
        )
        for row in rows:
            parts.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>")
        parts.append("</table>")
    parts.append("<h2>Items</h2>")
    for row in ev["rows"]:
        ranked = ", ".join(node_link(r) for r in row["ranked"][:10])
        gold = ", ".join(node_link(g) for g in row["gold"])
        metrics = json.dumps({k: round(v, 3) for k, v in row["metrics"].items()})
        parts.append(
            f"<details><summary><code>{escape(row['item_id'])}</code> {escape(row['recipe'])} {escape(row['line'])}"
            f"/{escape(row['level'])}</summary><p>gold: {gold or '-'}</p><p>ranked: {ranked or '-'}</p>"
            f"<pre>{escape(metrics)}</pre></details>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)


def render_retrieval_markdown(data: dict[str, Any]) -> str:
    lines = [
        f"# {data['title']}",
        "",
        "> **RETRIEVAL-ONLY:** no LLM is configured; no answers, no judging, no accuracy. Skipped: "
        + "; ".join(data["skipped"])
        + ".",
        "",
    ]
    lines.extend(f"- note: {note}" for note in data["notes"])
    for title, header, rows in _summary_tables(data["evaluation"]):
        lines += ["", f"## {title}", "", "| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
        lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines) + "\n"
