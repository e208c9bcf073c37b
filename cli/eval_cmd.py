"""`colabench eval`: the retrieval-line evaluation (`eval retrieval`, no LLM), printed as tables and written as
JSON; `eval qa` and `eval memory` (LLM judges) live in cli/eval_qa_cmd.py and cli/eval_memory_cmd.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich import box
from rich.table import Table

from agents.retrieval_eval.datasets import DATASETS
from agents.retrieval_eval.granularity import GRANULARITIES, check_granularity
from agents.retrieval_eval.report import EvalReport, GroupSummary
from cli.context import console, expected_errors, open_store
from cli.ingest_cmd import resolve_dataset_path
from cli.progress_lines import phase_progress
from graph.errors import BadInputError
from query.recipes import RECIPES, Recipe, parse_recipes
from query.retriever import MAX_K, Retriever

if TYPE_CHECKING:
    from agents.llm.roles import LLMRoles
    from agents.retrieval_eval.expansion_rows import RetrievalExpansion

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True)


def _register_qa() -> None:
    from cli.eval_qa_cmd import qa, score

    qa_app = typer.Typer(rich_markup_mode=None, invoke_without_command=True)
    qa_app.callback()(qa)
    qa_app.command("score")(score)
    app.add_typer(qa_app, name="qa", help="LongMemEval QA (reader + judge); `qa score FILE` re-scores LoCoMo results")


_register_qa()


def parse_ks(text: str) -> list[int]:
    """`1,3,5` -> [1, 3, 5]; each k from 1 to 20."""
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError as exc:
        raise BadInputError(f"--k must be comma-separated integers, got {text!r}") from exc
    if not ks or ks[0] < 1 or ks[-1] > MAX_K:
        raise BadInputError(f"--k values must lie in 1..{MAX_K}, got {text!r}")
    return ks


@app.command()
@expected_errors
def retrieval(
    dataset: str = typer.Option(..., "--dataset", help="|".join(DATASETS)),
    path: str = typer.Option(..., "--path", help="the dataset's file or folder (`sample` = the bundled sample)"),
    recipes: str = typer.Option("all", "--recipes", help="comma-separated recipes, or all: " + ",".join(RECIPES)),
    k: str = typer.Option("1,3,5,10,20", "--k", help="cut-offs"),
    out: Path = typer.Option(None, "--out", help="write the JSON report (summaries and per-item rows) here"),
    limit: int = typer.Option(None, "--limit", min=1, help="evaluate at most this many items (stable subset)"),
    kappa: float = typer.Option(None, "--kappa", help="RRF kappa for every recipe (default: each recipe's, 60)"),
    granularity: str = typer.Option(
        "turn",
        "--granularity",
        help="memory units the raw-turn recipes rank: " + "|".join(GRANULARITIES) + " (round = a user turn with its "
        "assistant reply; session = whole sessions)",
    ),
    variant: str = typer.Option(
        None, "--variant", help="LongMemEval variant s|m|oracle, for a file whose name does not say it"
    ),
    key_expansion: str = typer.Option(
        "none", "--key-expansion", help="none | facts: also rank cards with LLM facts appended to their keys"
    ),
    time_aware: str = typer.Option(
        "none",
        "--time-aware",
        help="none | rules | llm: also rank cards only among sessions in the question's time range, read by "
        "rules or by an LLM (LongMemEval's definition; the `memory` role)",
    ),
    prompt: list[str] = typer.Option(
        None, "--prompt", help="NAME=PATH[@SHA256]: a qa_key_facts / qa_time_range prompt file (repeatable)"
    ),
    keyword_analyzer: str = typer.Option(
        None,
        "--keyword-analyzer",
        help="english | plain: the keyword channel's analyzer for every recipe (default: each recipe's; "
        "docs/retrieval.md)",
    ),
    keyword_padding: bool = typer.Option(
        None,
        "--keyword-padding/--no-keyword-padding",
        help="pad the memory line's keyword list to every card (BM25 0, ties by id) before the fusion",
    ),
    locomo_caption: str = typer.Option(
        None, "--locomo-caption",
        help="bare | bracketed: how LoCoMo image captions join the turn text, \"<text> <caption>\" (bare, the "
        "default) or \"<text> [image: <caption>]\"; a graph holding the turns in the other form is refused",
    ),
) -> None:
    """Ingest the dataset if needed, build raw-turn memory (and links for MemKB), evaluate every recipe.

    Progress goes to stderr: a bar on a terminal, plain lines every 10 s otherwise."""
    check_granularity(granularity)
    ks = parse_ks(k)
    chosen = _chosen_recipes(recipes, kappa, keyword_analyzer, keyword_padding)
    source = resolve_dataset_path(path)
    from cli.eval_qa_cmd import retrieval_expansion

    expansion, fact_roles = retrieval_expansion(key_expansion, time_aware, prompt)
    report = _evaluate_recipes(
        dataset, source, chosen, ks, limit, granularity, variant, expansion, fact_roles, locomo_caption
    )
    print_report(report)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report.model_dump(mode="json"), indent=1, ensure_ascii=False), encoding="utf-8")
        console.print(f"wrote {out} ({len(report.rows):,} item rows)")


def _chosen_recipes(
    recipes: str, kappa: float | None, keyword_analyzer: str | None, keyword_padding: bool | None
) -> list[Recipe]:
    """The recipes named, with the command line's RRF kappa and keyword channel settings applied to each."""
    chosen = parse_recipes(recipes)
    if kappa is not None:
        chosen = [r.with_kappa(kappa) for r in chosen]
    if keyword_analyzer is not None or keyword_padding is not None:
        from query.keyword_analyzers import ANALYZERS

        if keyword_analyzer is not None and keyword_analyzer.strip().lower() not in ANALYZERS:
            raise BadInputError(f"--keyword-analyzer must be one of {', '.join(ANALYZERS)}, got {keyword_analyzer!r}")
        chosen = [r.with_keyword(keyword_analyzer, keyword_padding) for r in chosen]
    return chosen


def _evaluate_recipes(
    dataset: str,
    source: Path,
    chosen: list[Recipe],
    ks: list[int],
    limit: int | None,
    granularity: str,
    variant: str | None,
    expansion: RetrievalExpansion | None,
    fact_roles: LLMRoles | None,
    caption: str | None,
) -> EvalReport:
    """Run the evaluation in the store, with the LLM-built systems' builder when the `memory` role has an
    endpoint and the SDK rankers of the systems the recipes read; every client is closed however it ends."""
    from agents.memory.rankers import sdk_rankers
    from agents.retrieval_eval.pipeline import run_retrieval_eval

    with open_store() as store, phase_progress() as on_progress:
        assert store.encoder is not None
        retriever = Retriever(store.driver, store.encoder, store.database)
        builder, roles = llm_memory_builder(store, retriever)
        try:
            with sdk_rankers(store, {r.memory_system for r in chosen if r.needs_profile}):
                return run_retrieval_eval(
                    store, retriever, dataset, source, chosen, ks, limit=limit, progress=on_progress,
                    memory_builder=builder, granularity=granularity, variant=variant, expansion=expansion,
                    caption=caption,
                )
        finally:
            if fact_roles is not None:
                fact_roles.close()
            retriever.close()
            if roles is not None:
                roles.close()


def llm_memory_builder(store: Any, retriever: Retriever) -> tuple[Any, Any]:
    """(builder, roles) for the LLM-built memory systems when the `memory` role has an endpoint, else
    (None, None): the evaluation then leaves out recipes whose memories do not exist, and says so."""
    from agents.llm.roles import LLMRoles

    roles = LLMRoles()
    if not roles.configured("memory"):
        roles.close()
        return None, None
    from agents.memory.prepare import build_profiles, summed_counts

    llm = roles.client("memory")

    def builder(system: str, profile_ids: list[str], progress: Any) -> dict[str, int]:
        return summed_counts(build_profiles(system, store, retriever, profile_ids, llm=llm, progress=progress))

    return builder, roles


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


_SHORT = {"recall_any": "any", "recall_all": "all", "ndcg": "ndcg", "first_search_hit": "1st hit"}


def print_report(report: EvalReport) -> None:
    """One table per (line, level): a block of rows per recipe (one row per metric family: recall_any,
    recall_all, LongMemEval NDCG, first-search hit), a column per k (micro means), and the macro mean over
    question types at k=5."""
    console.print(
        f"[bold]{report.dataset}[/] ({report.kind}, {report.path}); corpus: {report.corpus or '-'}; "
        f"encoder {report.encoder_id}"
    )
    groups: dict[tuple[str, str, str], list[GroupSummary]] = {}
    for summary in report.summaries:
        groups.setdefault((summary.group, summary.line, summary.level), []).append(summary)
    several = len({group for group, _, _ in groups}) > 1
    for (group, line, level), summaries in groups.items():
        names = list(dict.fromkeys(n for s in summaries for n in s.micro))
        families = list(dict.fromkeys(n.partition("@")[0] for n in names))
        cuts = sorted({int(n.partition("@")[2]) for n in names if n.partition("@")[2].isdigit()})
        plain = [n for n in names if "@" not in n]
        macro_cut = 5 if 5 in cuts else (cuts[0] if cuts else None)
        table = Table(
            title=(f"{group}: " if several else "")
            + f"{line} line, {level} level (micro means; macro = mean over question types)",
            box=box.SIMPLE_HEAD,
            padding=(0, 1),
            show_edge=False,
            pad_edge=False,
        )
        table.add_column("recipe", no_wrap=True)
        table.add_column("n", justify="right")
        table.add_column("metric", no_wrap=True)
        for cut in cuts:
            table.add_column(f"@{cut}", justify="right")
        if plain:
            table.add_column("value", justify="right")
        if macro_cut is not None:
            table.add_column(f"macro@{macro_cut}", justify="right")
        for s in summaries:
            n = str(s.n_items)
            first = True
            for family in families:
                if family in plain:
                    continue
                cells = [_fmt(s.micro.get(f"{family}@{cut}")) if f"{family}@{cut}" in s.micro else "" for cut in cuts]
                macro = s.macro.get(f"{family}@{macro_cut}") if macro_cut is not None else None
                table.add_row(
                    s.recipe if first else "",
                    n if first else "",
                    _SHORT.get(family, family),
                    *cells,
                    *([""] if plain else []),
                    *([_fmt(macro) if macro is not None else ""] if macro_cut is not None else []),
                    end_section=False,
                )
                first = False
            for name in plain:
                table.add_row(
                    s.recipe if first else "",
                    n if first else "",
                    name,
                    *([""] * len(cuts)),
                    _fmt(s.micro.get(name)),
                    *([_fmt(s.macro.get(name))] if macro_cut is not None else []),
                )
                first = False
            table.rows[-1].end_section = True
        console.print(table)
        skipped = [f"{s.recipe} {s.n_skipped}" for s in summaries if s.n_skipped]
        if skipped:
            console.print(f"[dim]skipped items: {', '.join(skipped)}[/]")
        short = [f"{s.recipe} {s.n_short_keyword:,} of {s.n_items:,}" for s in summaries if s.n_short_keyword]
        if short:
            console.print(f"[dim]keyword list shorter than its budget: {', '.join(short)} scored items[/]")
    reasons = {reason for s in report.summaries for reason in s.skipped}
    for reason in sorted(reasons):
        console.print(f"[dim]skipped: {reason}[/]")
    for note in report.notes:
        console.print(f"[yellow]note:[/] {note}")
    for line in report.keyword_channel:
        console.print(f"[dim]{line}[/]")
    timing = ", ".join(f"{name} {value:.1f} s" for name, value in report.seconds.items())
    console.print(f"[dim]time: {timing}[/]")
