"""Preparing a profile's memory before a run or an evaluation: build what is missing of the system's memory,
then (when MemKB reads the cards) link the cards to documents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.memory.errors import EmptyMemoryError, MemorySystemError
from agents.memory.registry import BuildContext, BuildReport, Progress, get_memory_system
from graph.cypher_files import load_cypher
from graph.store import EventStore


def require_llm(name: str, llm: Any) -> None:
    """Raise MemorySystemError saying what to set when the named system is built by an LLM and `llm` is None."""
    cls = get_memory_system(name)
    if cls.needs_llm and llm is None:
        raise MemorySystemError(
            f"memory system {cls.name!r} ({cls.label}) is built by an LLM, and no endpoint is configured for the "
            "`memory` role: set COLABENCH_LLM_BASE_URL (or COLABENCH_LLM_MEMORY_BASE_URL) and a model; "
            "the `raw_turns` system needs no LLM"
        )


def open_memory_system(
    name: str,
    store: EventStore,
    retriever: Any = None,
    llm: Any = None,
    progress: Progress | None = None,
    ledger: Any = None,
) -> Any:
    """An instance of the named system; an LLM-built system without an LLM client fails with what to set.
    `ledger` counts the requests of a system that calls an endpoint of its own (a memory adapter)."""
    require_llm(name, llm)
    ctx = BuildContext(store=store, retriever=retriever, llm=llm, progress=progress, ledger=ledger)
    return get_memory_system(name)(ctx)


def prepare_memory(
    name: str,
    store: EventStore,
    retriever: Any,
    profile_id: str,
    *,
    llm: Any = None,
    links: bool = True,
    progress: Progress | None = None,
) -> BuildReport:
    """Build the missing memory of `profile_id` in system `name`, then link its cards (when the system's cards
    are MemKB cards and `links`). Returns the build report, link counts included."""
    return build_profiles(name, store, retriever, [profile_id], llm=llm, links=links, progress=progress)[0]


def build_profiles(
    name: str,
    store: EventStore,
    retriever: Any,
    profile_ids: list[str],
    *,
    llm: Any = None,
    links: bool = False,
    progress: Progress | None = None,
    on_error: Callable[[str, Exception], None] | None = None,
    recoverable: tuple[type[Exception], ...] = (),
    ledger: Any = None,
) -> list[BuildReport]:
    """`prepare_memory` for each profile in turn, with the system (its SDK) opened once for all of them;
    `progress` counts pairs over all the profiles (done, total). An error of a `recoverable` type in one
    profile's build is handed to `on_error(profile_id, error)` and the next profile goes on (no report for
    it); any other error stops the build."""
    from agents.history import load_public_history
    from agents.memory.cards.document_links import build_document_links
    from agents.memory.pairs import history_pairs

    system = open_memory_system(name, store, retriever, llm, ledger=ledger)
    totals: dict[str, int] = {}
    if progress is not None and system.needs_llm and len(profile_ids) > 1:
        for pid in profile_ids:
            totals[pid] = len(history_pairs(load_public_history(store.driver, store.database, pid)))
    grand = sum(totals.values())
    done_before = 0
    reports: list[BuildReport] = []
    try:
        for pid in profile_ids:
            offset = done_before

            def step(done: int, total: int, offset: int = offset) -> None:
                if progress is not None:
                    progress(offset + done, grand or total)

            system.ctx.progress = step if totals else progress
            done_before += totals.get(pid, 0)
            try:
                report: BuildReport = system.build(pid)
                require_memories(system, pid, report)
                if links and system.memkb_cards and retriever is not None:
                    report.add_counts(build_document_links(store, retriever, system.name, pid))
            except recoverable as exc:
                if on_error is None:
                    raise
                on_error(pid, exc)
                continue
            reports.append(report)
    finally:
        system.close()
    return reports


def require_memories(system: Any, profile_id: str, report: BuildReport) -> None:
    """Raise EmptyMemoryError when an LLM-built system took in pairs of the profile and holds no memory of it."""
    if not system.needs_llm or report.pairs_total == 0:
        return
    store = system.ctx.store
    with store.driver.session(database=store.database) as session:
        rows = session.run(load_cypher("memory/card_counts"), profile_ids=[profile_id])
        live = {r["system"]: int(r["n"]) for r in rows}
    if live.get(system.name, 0) == 0:
        raise EmptyMemoryError(
            f"memory system {system.name!r} ({system.label}) holds no memory of profile {profile_id!r} after taking "
            f"in its {report.pairs_total} public pair(s) ({report.llm_calls} LLM call(s) in this build): every "
            "attempt reading this memory would answer from nothing, so they fail. Check what the `memory` "
            "endpoint answers for this profile's pairs"
        )


def summed_counts(reports: list[BuildReport]) -> dict[str, int]:
    """The reports' numbers added up (pairs, memories, LLM calls, tokens, and every extra count)."""
    out: dict[str, int] = {}
    for report in reports:
        for key in (
            "pairs_total", "pairs_built", "pairs_skipped", "memories_added", "memories_updated", "memories_deleted",
            "llm_calls", "llm_cache_hits", "tokens_in", "tokens_out",
        ):
            out[key] = out.get(key, 0) + int(getattr(report, key))
        for key, value in report.counts.items():
            out[key] = out.get(key, 0) + value
    return out
