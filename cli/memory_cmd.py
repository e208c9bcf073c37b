"""`colabench memory build|systems`: build a memory system's memories for profiles (and MemKB's document links)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import typer
from rich.progress import Progress
from rich.table import Table

from agents.memory.registry import memory_system_help
from cli.context import console, err_console, expected_errors, open_store
from cli.endpoint_check import check_endpoints, endpoint_check_option
from cli.exit_codes import EXIT_ENDPOINT_OR_PARTIAL
from cli.progress_lines import progress_bar
from cli.query_cmd import corpus_from_options

if TYPE_CHECKING:
    from agents.llm.client import LLMClient
    from agents.llm.roles import LLMRoles
    from agents.memory.registry import MemorySystem
    from graph.store import EventStore
    from query.corpus import Corpus

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True)


@app.command()
@expected_errors
def systems() -> None:
    """List the registered memory systems: what builds them, their search recipe, whether MemKB links them."""
    from agents.memory.registry import MEMORY_FAMILIES, get_memory_system, memory_system_names

    for name in memory_system_names():
        cls = get_memory_system(name)
        console.print(f"[bold]{cls.name}[/] ({cls.label})")
        console.print(f"  {cls.description}")
        console.print(
            f"  needs an LLM: {'yes (the `memory` role)' if cls.needs_llm else 'no'}; memory_search recipe: "
            f"{cls.search_recipe}; MemKB cards: {'yes' if cls.memkb_cards else 'no'}; builder: {cls.builder}"
        )
    for family in MEMORY_FAMILIES.values():
        console.print(f"[bold]{family.prefix}*[/]: {family.help}")


@app.command()
@expected_errors
def build(
    system: str = typer.Option("raw_turns", "--system", help=memory_system_help()),
    profile: list[str] = typer.Option(None, "--profile", help="only this profile (repeatable; default: every one)"),
    links: bool = typer.Option(True, "--links/--no-links", help="also link MemKB cards to documents"),
    source: list[str] = typer.Option(None, "--source", help="link only to documents of this source (repeatable)"),
    prefix: list[str] = typer.Option(None, "--prefix", help="link only to documents whose id starts so"),
    no_endpoint_check: bool = endpoint_check_option(),
) -> None:
    """Build what is missing of a memory system's memories (one SDK call per public user-assistant pair for the
    LLM-built systems), then link MemKB cards that lack links or whose links are stale. Resumable: pairs already
    taken in are skipped (by event); rerun after an interruption."""
    from agents.memory.prepare import require_llm
    from agents.memory.registry import get_memory_system

    cls = get_memory_system(system)
    roles, llm = _memory_llm(cls)
    require_llm(cls.name, llm)  # says what to set, before any database work
    if roles is not None:
        check_endpoints(roles, ["memory"], not no_endpoint_check)
    started = time.perf_counter()
    try:
        with open_store() as store, progress_bar() as bar:
            assert store.encoder is not None
            profiles = _profiles(store, profile)
            counts = _build_memories(store, bar, cls, profiles, llm, links, corpus_from_options(source, prefix))
            live = _live_cards(store, profiles)
    finally:
        if roles is not None:
            roles.close()
    _print_build(cls, profiles, counts, time.perf_counter() - started, roles)
    if not live.get(cls.name):
        err_console.print(
            f"[red]no memories[/]: {cls.name} holds no live memory for the {len(profiles)} profile(s) after the "
            "build; nothing for a run to read (check the profiles' public turns, or the memory role's replies)"
        )
        raise typer.Exit(EXIT_ENDPOINT_OR_PARTIAL)


def _memory_llm(cls: type[MemorySystem]) -> tuple[LLMRoles | None, LLMClient | None]:
    """(roles, the `memory` role's client) for a system built with an LLM ((roles, None) when the role has no
    endpoint); (None, None) for one built without."""
    if not cls.needs_llm:
        return None, None
    from agents.llm.roles import LLMRoles

    roles = LLMRoles()
    return roles, roles.client("memory") if roles.configured("memory") else None


def _profiles(store: EventStore, wanted: list[str] | None) -> list[str]:
    """The profiles asked for (each once, in order), else every profile in the graph."""
    from graph.cypher_files import load_cypher

    if wanted:
        return list(dict.fromkeys(wanted))
    with store.driver.session(database=store.database) as session:
        return [r["id"] for r in session.run(load_cypher("memory/all_profiles"))]


def _build_memories(
    store: EventStore,
    bar: Progress,
    cls: type[MemorySystem],
    profiles: list[str],
    llm: LLMClient | None,
    links: bool,
    corpus: Corpus | None,
) -> dict[str, int]:
    """Build the system's missing memories of these profiles, then (for MemKB cards, unless `--no-links`) their
    document links, each with a progress bar; the summed counts."""
    from agents.memory.cards.document_links import build_document_links
    from agents.memory.prepare import build_profiles, summed_counts
    from query.retriever import Retriever

    assert store.encoder is not None
    retriever = Retriever(store.driver, store.encoder, store.database)
    try:
        unit = "pairs" if cls.needs_llm else "memory cards"
        task = bar.add_task(f"{cls.name}: {unit}", total=None)
        reports = build_profiles(
            cls.name, store, retriever, profiles, llm=llm, links=False,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
        counts: dict[str, int] = summed_counts(reports)
        if links and cls.memkb_cards:
            task = bar.add_task("document links", total=None)
            counts.update(
                build_document_links(
                    store, retriever, cls.name, profile_ids=profiles, corpus=corpus,
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                )
            )
    finally:
        retriever.close()
    return counts


def _live_cards(store: EventStore, profiles: list[str]) -> dict[str, int]:
    """Live memories per system among these profiles."""
    from graph.cypher_files import load_cypher

    with store.driver.session(database=store.database) as session:
        rows = session.run(load_cypher("memory/card_counts"), profile_ids=profiles)
        return {r["system"]: int(r["n"]) for r in rows}


def _print_build(
    cls: type[MemorySystem], profiles: list[str], counts: dict[str, int], elapsed: float, roles: LLMRoles | None
) -> None:
    """The table of what the build did (counts worth showing) and, for an LLM-built system, its LLM traffic."""
    table = Table(title=f"memory build ({cls.name}, {len(profiles)} profile(s), {elapsed:.1f} s)")
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, value in counts.items():
        if value or (name == "pairs_built" and cls.needs_llm) or name == "memories_added":
            table.add_row(name.replace("_", " "), f"{value:,}")
    console.print(table)
    if roles is not None:
        from agents.llm.traffic import traffic_lines

        for line in traffic_lines(roles.total_usage()):
            console.print(line, highlight=False, markup=False, soft_wrap=True)
