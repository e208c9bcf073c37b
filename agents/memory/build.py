"""The pair-by-pair build shared by the LLM-built memory systems.

For each public pair of the profile's history not yet taken in (no MemoryPairProcessed of this system), in
history order: the system turns the pair into memory writes, every write is checked to name only turns of the
profile, and the writes plus the pair's MemoryPairProcessed (with the LLM calls, tokens and seconds the pair
cost) are appended in one transaction. A crash between pairs loses nothing; a crash inside a pair leaves
nothing of it, and the rerun does that pair again. A pair's LLM replies are cached once the pair is written, so
a pair that failed (an SDK that logged a failure and carried on, agents.memory.sdk_failures) is asked again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from agents.history import load_public_history
from agents.memory.errors import MemoryWriteError, SdkSwallowedFailureError
from agents.memory.pairs import HistoryPair, history_pairs
from agents.memory.sdk_failures import SdkFailureWatch
from graph.cypher_files import load_cypher
from graph.events import MemoryPairProcessed, MemoryWritten, NewEvent

if TYPE_CHECKING:
    from agents.memory.registry import BuildReport, MemorySystem


def processed_pair_ids(system: MemorySystem, profile_id: str) -> set[str]:
    store = system.ctx.store
    with store.driver.session(database=store.database) as session:
        record = session.run(load_cypher("memory/processed_pairs"), profile_id=profile_id, system=system.name).single()
    return set(record["pair_ids"]) if record else set()


def check_writes(system_name: str, profile_id: str, writes: list[MemoryWritten], known_turns: set[str]) -> None:
    """Refuse writes of another system or profile, or naming a turn that is not a turn of this profile."""
    for write in writes:
        if write.system != system_name or write.profile_id != profile_id:
            raise MemoryWriteError(
                f"memory system {system_name!r}, profile {profile_id!r}: write of memory {write.memory_id!r} is "
                f"labelled system {write.system!r}, profile {write.profile_id!r}"
            )
        if write.op != "DELETE" and not write.source_turn_ids:
            raise MemoryWriteError(
                f"memory system {system_name!r}, profile {profile_id!r}: memory {write.memory_id!r} names no "
                "source turn; every memory must derive from turns of the history"
            )
        for turn_id in write.source_turn_ids:
            if turn_id not in known_turns:
                raise MemoryWriteError(
                    f"memory system {system_name!r}, profile {profile_id!r}: memory {write.memory_id!r} names "
                    f"turn {turn_id!r}, which is not a turn of this profile; nothing of the pair was written"
                )


def build_by_pairs(system: MemorySystem, profile_id: str) -> BuildReport:
    from agents.memory.registry import BuildReport
    from query.memory.profiles import require_profiles

    ctx = system.ctx
    require_profiles(ctx.store, [profile_id])
    history = load_public_history(ctx.store.driver, ctx.store.database, profile_id)
    known = {t.turn_id for t in history}
    pairs = history_pairs(history)
    done = processed_pair_ids(system, profile_id)
    report = BuildReport(system=system.name, profile_id=profile_id, pairs_total=len(pairs))
    todo: list[HistoryPair] = [p for p in pairs if p.pair_id not in done]
    report.pairs_skipped = len(pairs) - len(todo)
    started = time.perf_counter()
    if ctx.progress:
        ctx.progress(report.pairs_skipped, len(pairs))
    for index, pair in enumerate(todo, start=1):
        before = _usage(ctx.llm)
        t0 = time.perf_counter()
        with _trail(ctx.llm) as trail, _held_replies(ctx.llm) as replies:
            try:
                with SdkFailureWatch(system.sdk_loggers, min_level=system.sdk_failure_level) as watch:
                    writes = system.build_pair(profile_id, pair)
                if watch.failures:
                    raise SdkSwallowedFailureError(
                        f"memory system {system.name!r}, profile {profile_id!r}: {system.label} logged "
                        f"{len(watch.failures)} failure(s) and carried on while taking in pair {pair.pair_id!r} "
                        f"({watch.summary()}); the pair counts as failed: nothing of it was written, its replies "
                        "were not cached, and the build of this profile stops here (a rerun asks the endpoint again)"
                    )
            except SdkSwallowedFailureError:
                _count_failed_pair(ctx.llm)
                raise
            if trail:
                # The pair's last exchange (for Mem0 the update decision, whose request shows the extracted facts
                # and the memories they were compared with); every exchange of the pair is on its step event.
                writes = [w.model_copy(update={"exchange": trail[-1]}) for w in writes]
            check_writes(system.name, profile_id, writes, known)
        seconds = time.perf_counter() - t0
        after = _usage(ctx.llm)
        calls, hits, tin, tout = (a - b for a, b in zip(after, before, strict=True))
        step = MemoryPairProcessed(
            system=system.name,
            profile_id=profile_id,
            pair_id=pair.pair_id,
            turn_ids=pair.turn_ids,
            memory_ids=list(dict.fromkeys(w.memory_id for w in writes)),
            builder=system.builder,
            llm_calls=calls,
            tokens_in=tin,
            tokens_out=tout,
            seconds=round(seconds, 4),
            details={"exchanges": list(trail)} if trail else {},
        )
        actor = f"memory:{system.name}"
        ctx.store.append([NewEvent(w, actor, pair.at) for w in writes] + [NewEvent(step, actor, pair.at)])
        system.pair_written(profile_id, pair)
        _keep_replies(ctx.llm, replies)
        report.pairs_built += 1
        report.memories_added += sum(1 for w in writes if w.op == "ADD")
        report.memories_updated += sum(1 for w in writes if w.op == "UPDATE")
        report.memories_deleted += sum(1 for w in writes if w.op == "DELETE")
        report.llm_calls += calls
        report.llm_cache_hits += hits
        report.tokens_in += tin
        report.tokens_out += tout
        if ctx.progress:
            ctx.progress(report.pairs_skipped + index, len(pairs))
    report.seconds = round(time.perf_counter() - started, 3)
    if report.pairs_built:
        report.seconds_per_pair = round(report.seconds / report.pairs_built, 4)
    return report


def _trail(llm: object) -> AbstractContextManager[list[str]]:
    """The client's exchange trail, or an empty list for a system that asks no LLM."""
    opened = getattr(llm, "exchange_trail", None)
    return opened() if callable(opened) else nullcontext([])


@contextmanager
def _held_replies(llm: Any) -> Iterator[list[Any]]:
    """The pair's replies, kept back from the cache until the pair is written (agents.memory.pair_replies)."""
    hold = getattr(llm, "hold", None)
    if hold is None:
        yield []
        return
    with hold() as replies:
        yield replies


def _keep_replies(llm: Any, replies: list[Any]) -> None:
    keep = getattr(llm, "keep", None)
    if keep is not None:
        keep(replies)


def _count_failed_pair(llm: Any) -> None:
    """A pair the SDK could not use its replies for counts as an invalid reply of the client's role."""
    ledger = getattr(llm, "ledger", None)
    role = getattr(llm, "role", None)
    if ledger is not None and role is not None:
        ledger.record_invalid(role)


def _usage(llm: object) -> tuple[int, int, int, int]:
    """(calls, cache hits, tokens in, tokens out) counted so far by the client's role in its ledger."""
    if llm is None:
        return (0, 0, 0, 0)
    ledger = getattr(llm, "ledger", None)
    role = getattr(llm, "role", None)
    if ledger is None or role is None:
        return (0, 0, 0, 0)
    usage = ledger.snapshot().get(role)
    if usage is None:
        return (0, 0, 0, 0)
    return (usage.calls, usage.cache_hits, usage.tokens_in, usage.tokens_out)
