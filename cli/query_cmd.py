"""`colabench query search|read`: run a retrieval recipe or the Read tool against the graph."""

from __future__ import annotations

import json

import typer
from rich.panel import Panel
from rich.table import Table

import agents  # noqa: F401 (the memory systems' folders register their recipes before the help lists them)
from cli.context import console, expected_errors, open_store
from query.corpus import Corpus
from query.recipes import RECIPES
from query.retriever import Retriever

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True)


def corpus_from_options(sources: list[str] | None, prefixes: list[str] | None) -> Corpus | None:
    """A corpus filter from --source / --prefix options (None: every document)."""
    if not sources and not prefixes:
        return None
    return Corpus(sources=tuple(sources) if sources else None, doc_id_prefixes=tuple(prefixes) if prefixes else None)


@app.command()
@expected_errors
def search(
    text: str = typer.Argument(..., help="the query"),
    recipe: str = typer.Option("HYBRID", "--recipe", "-r", help="|".join(RECIPES)),
    profile: str = typer.Option(None, "--profile", "-p", help="profile id (memory recipes need one)"),
    k: int = typer.Option(5, "--k", "-k", help="documents / memories to return (1-20)"),
    keywords: str = typer.Option(None, "--keywords", help="comma-separated keywords for the keyword channel"),
    before_turn: str = typer.Option(None, "--before-turn", help="last visible turn of the history (inclusive)"),
    source: list[str] = typer.Option(None, "--source", help="only documents of this source (repeatable)"),
    prefix: list[str] = typer.Option(None, "--prefix", help="only documents whose id starts so (repeatable)"),
    as_json: bool = typer.Option(False, "--json", help="print the SearchResult as JSON"),
) -> None:
    """Search with a named recipe and print documents, memories, states and notes."""
    with open_store() as store:
        assert store.encoder is not None
        retriever = Retriever(store.driver, store.encoder, store.database)
        from agents.memory.rankers import sdk_rankers
        from query.recipes import get_recipe

        chosen = get_recipe(recipe)
        try:
            with sdk_rankers(store, [chosen.memory_system if chosen.needs_profile else None]):
                result = retriever.search(
                    chosen,
                    text,
                    profile_id=profile,
                    k=k,
                    keywords=[kw.strip() for kw in keywords.split(",")] if keywords else None,
                    before_turn_id=before_turn,
                    corpus=corpus_from_options(source, prefix),
                )
        finally:
            retriever.close()
    if as_json:
        print(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return
    if result.states:
        states = Table(title="states", show_lines=False)
        for column in ("state", "text", "sources"):
            states.add_column(column, overflow="fold")
        for state in result.states:
            states.add_row(state.state_id, state.text, ", ".join(state.source_turn_ids))
        console.print(states)
    if result.memories:
        memories = Table(title=f"memories ({result.recipe})")
        for column in ("#", "memory", "score", "text", "source turns", "linked docs"):
            memories.add_column(column, overflow="fold")
        for m in result.memories:
            memories.add_row(
                str(m.rank),
                m.memory_id,
                f"{m.score:.4f}",
                m.text[:160],
                ", ".join(m.source_turn_ids),
                str(len(m.linked_doc_ids)),
            )
        console.print(memories)
    if result.documents:
        docs = Table(title=f"documents ({result.recipe}, kappa {result.kappa:g})")
        for column in ("#", "document", "lines", "score", "channel ranks", "title"):
            docs.add_column(column, overflow="fold")
        for d in result.documents:
            ranks = " ".join(f"{c}:{r}" for c, r in d.channel_ranks.items())
            docs.add_row(str(d.rank), d.doc_id, f"{d.start_line}-{d.end_line}", f"{d.score:.4f}", ranks, d.title)
        console.print(docs)
    for note in result.notes:
        console.print(f"[yellow]note:[/] {note}")
    timing = ", ".join(f"{name} {ms:.1f}" for name, ms in result.timings_ms.items())
    console.print(f"[dim]ms: {timing}[/]")


@app.command()
@expected_errors
def read(
    doc_id: str = typer.Argument(..., help="document id"),
    start: int = typer.Option(1, "--start", help="first line (from 1)"),
    lines: int = typer.Option(100, "--lines", help="lines to read (at most 100 are returned)"),
    as_json: bool = typer.Option(False, "--json", help="print the ReadResult as JSON"),
) -> None:
    """The Read tool: at most 100 lines and 3,000 tokens of a document, with the range returned."""
    with open_store(with_encoder=False) as store:
        from query.read_tool import read_document

        result = read_document(store.driver, store.database, doc_id, start, lines)
    if as_json:
        print(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return
    title = f"{result.doc_id} lines {result.start_line}-{result.end_line} of {result.doc_lines}: {result.title}"
    console.print(Panel(result.text, title=title, subtitle=f"{result.n_tokens} tokens", expand=False), markup=False)
    if result.truncated:
        console.print("[yellow]truncated:[/] the 100-line / 3,000-token limit cut this read")
