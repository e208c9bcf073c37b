"""The report of `./colabench run` when no LLM is configured: the retrieval line (query room's evaluation, no
LLM) of the recipes the chosen methods use, labelled retrieval-only on every page, and saying which parts of a
run were skipped (state summaries, answers, judging) and why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.methods.registry import MethodSpec
from agents.reports.retrieval_details import collect_retrieval_details
from agents.reports.retrieval_pages import render_retrieval_html, render_retrieval_markdown
from graph.errors import BadInputError, UsageError
from graph.store import EventStore

__all__ = ["build_retrieval_report", "render_retrieval_html", "render_retrieval_markdown"]

KS = (1, 3, 5, 10, 20)
SKIPPED = (
    "state summaries S(H) (need the `state` LLM role)",
    "answers (need the `answerer` LLM role)",
    "judging: accuracy, quality, error analysis (need the `judge` LLM role)",
)
_KINDS = {"bundle": "bundle", "longmemeval": "longmemeval", "locomo": "locomo", "ikat": "ikat"}


def dataset_source(dataset: str) -> tuple[str, Path]:
    """(evaluation kind, path) for `sample` or a path; the retrieval line needs the input files."""
    from ingest.bundled import bundled_path
    from ingest.pipeline import detect_format

    path = bundled_path(dataset) or Path(dataset)
    if not path.exists():
        raise BadInputError(
            "the retrieval line reads the dataset's files: pass --dataset sample, synth-sample or a path, not "
            f"{dataset!r}"
        )
    fmt = detect_format(path)
    kind = _KINDS.get(fmt)
    if kind is None:
        raise UsageError(f"{path} is a {fmt} input, which has no items to evaluate")
    return kind, path


def method_recipes(specs: list[MethodSpec]) -> list[str]:
    """The retrieval recipes the methods' search tools run, in order, without repeats."""
    names: list[str] = []
    for spec in specs:
        for binding in spec.tools:
            if binding.recipe and binding.recipe not in names:
                names.append(binding.recipe)
    return names


def retrieval_folder_name(dataset: str, methods: list[str], items: int | None) -> str:
    """The report folder of one retrieval-only configuration (dataset, methods, --items), so that another
    configuration never overwrites it: `<dataset>-retrieval-only-<methods>[-n<items>]`; more than three methods
    (or long names) are written as their count and a short hash of the list."""
    import hashlib

    slug = "-".join(m.lower() for m in methods)
    if len(methods) > 3 or len(slug) > 60:
        slug = f"{len(methods)}methods-{hashlib.sha256(','.join(methods).encode()).hexdigest()[:8]}"
    return f"{dataset}-retrieval-only-{slug}" + (f"-n{items}" if items is not None else "")


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
    from agents.retrieval_eval.pipeline import run_retrieval_eval
    from graph.embeddings import CachedEncoder
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
    if not report.recipes:
        left_out = " ".join(n for n in report.notes if "left out" in n)
        raise UsageError(
            f"nothing to report: every recipe of {', '.join(s.name for s in specs)} was left out of the retrieval "
            f"line ({left_out or 'no recipe could run'}); no report was written"
        )
    with console.status("retrieval line: reading items and titles for the report ..."):
        details = collect_retrieval_details(store.driver, store.database, report)
    evaluated = {str(r.get("name")) for r in report.recipes}
    # the title names the methods the line evaluated; a method whose recipes were left out is named in the notes
    ran = [s for s in specs if all(name in evaluated for name in method_recipes([s]))]
    for spec in specs:
        if spec not in ran:
            missing = ", ".join(n for n in method_recipes([spec]) if n not in evaluated)
            notes.append(f"{spec.name} is not in this report: its recipe(s) {missing} were left out (see below)")
    return {
        "kind": "retrieval",
        "title": f"RETRIEVAL-ONLY report: {', '.join(s.name for s in ran) or 'no method'} on {report.dataset} "
        "(no LLM configured)",
        "retrieval_only": True,
        "skipped": list(SKIPPED),
        "methods": [{"name": s.name, "label": s.label, "recipes": method_recipes([s])} for s in specs],
        # the keyword channel's definition (analyzer, stop words, stemming, index analyzer read from Neo4j)
        "notes": notes + list(report.notes) + list(report.keyword_channel),
        "evaluation": report.model_dump(mode="json"),
        "items": details["items"],
        "titles": details["titles"],
    }
