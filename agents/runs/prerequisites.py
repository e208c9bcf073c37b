"""A batch's prerequisites, made before any attempt runs: each memory system's build and the state summaries
S(H), only for the profiles with an attempt still to answer (`profiles_to_prepare`).

A build or summary that fails for a profile is a FailedPrerequisite: the attempts needing it fail with its reason,
and the others run. One that a spending limit (or Ctrl-C) stopped is no failure: nothing is written for it, and the
rerun makes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.llm.errors import LLMError, LLMInterruptedError
from agents.llm.roles import LLMRoles
from agents.memory.errors import MemorySystemError, retryable_cause
from agents.memory.prepare import build_profiles
from agents.memory.registry import get_memory_system
from agents.memory.state_summary import summarize_profile
from agents.prompts.registry import PromptSet
from agents.runs.attempt_worker import FailedPrerequisite
from agents.runs.plan import BatchPlan, PlannedRun
from agents.runs.prep_usage import PreparationUsage
from agents.runs.state import memory_build_costs
from agents.tools.execution import SearchBackend
from graph.store import EventStore


@dataclass
class Prerequisites:
    """What preparing a batch made (state summaries, memory build figures) and what failed, per profile."""

    # (profile, stage: state_summary | memory:<system>) -> its failure
    failed: dict[tuple[str, str], FailedPrerequisite] = field(default_factory=dict)
    # profile -> the id of its state summary
    summaries: dict[str, str] = field(default_factory=dict)
    # memory system -> what building it cost for the batch's profiles (agents.runs.state.memory_build_costs)
    memory_costs: dict[str, dict[str, Any]] = field(default_factory=dict)
    # memory system -> how this install's system differs from the paper's
    memory_deviations: dict[str, list[str]] = field(default_factory=dict)
    # the memory and state roles' usage of this preparation, each step charged to one run's record
    usage: PreparationUsage = field(default_factory=lambda: PreparationUsage({}))


def prepare_profiles(
    store: EventStore,
    retriever: SearchBackend,
    plan: BatchPlan,
    roles: LLMRoles,
    prompts: PromptSet,
    to_answer: dict[str, set[str]],
    notes: list[str],
    stage: Callable[[str], None],
) -> Prerequisites:
    """Build each memory system the batch's methods read, then the state summaries, for the profiles with an
    attempt still to answer (`to_answer`: run id -> item ids); `stage` announces each step, `notes` gets the
    profiles left out and the empty summaries."""
    ready = Prerequisites(usage=PreparationUsage(to_answer))
    systems = sorted({r.method.memory_system for r in plan.runs if r.method.memory_system})
    for system in systems:
        users = [r for r in plan.runs if r.method.memory_system == system]
        memory_profiles = profiles_to_prepare(plan, to_answer, users, f"memory ({system})", notes)
        if memory_profiles:
            stage(f"memory ({system}) for {len(memory_profiles)} profile(s)")
            _build_memory(store, retriever, plan, roles, system, memory_profiles, ready)
    profiles = sorted(set(plan.profiles.values()))
    ready.memory_costs = {system: memory_build_costs(store, system, profiles) for system in systems}
    ready.memory_deviations = {system: get_memory_system(system).deviations() for system in systems}
    state_users = [r for r in plan.runs if r.method.needs_states]
    state_profiles = profiles_to_prepare(plan, to_answer, state_users, "state summaries", notes) if state_users else []
    if state_profiles:
        stage(f"state summaries S(H) for {len(state_profiles)} profile(s)")
        _summarize_states(store, roles, prompts, state_profiles, ready, notes, [r.run_id for r in state_users])
    return ready


def profiles_to_prepare(
    plan: BatchPlan, to_answer: dict[str, set[str]], consumers: list[PlannedRun], what: str, notes: list[str]
) -> list[str]:
    """The profiles of the items `consumers` still answer; a note says how many of the batch's are left out (a
    profile whose attempts are done, refused earlier, or answered and waiting on judges needs nothing built)."""
    profiles = sorted(set(plan.profiles.values()))
    wanted = sorted({plan.profiles[i] for r in consumers for i in to_answer[r.run_id]})
    if len(wanted) < len(profiles):
        notes.append(
            f"{what}: {len(profiles) - len(wanted)} of {len(profiles)} profile(s) not built this time (every "
            "attempt needing them is done, refused earlier, or only waits on judges)"
        )
    return wanted


def _build_memory(
    store: EventStore,
    retriever: SearchBackend,
    plan: BatchPlan,
    roles: LLMRoles,
    system: str,
    profile_ids: list[str],
    ready: Prerequisites,
) -> None:
    """Build `system`'s memory for the profiles; a profile whose build fails (or every profile, when the system
    cannot be opened) is a failed prerequisite of stage `memory:<system>`."""
    linked = any(r.method.needs_memory_links for r in plan.runs if r.method.memory_system == system)
    users = [r.run_id for r in plan.runs if r.method.memory_system == system]
    build_ledger = ready.usage.ledger(f"memory:{system}", users)
    llm = roles.client("memory", build_ledger) if get_memory_system(system).needs_llm else None
    stage = f"memory:{system}"

    def memory_failed(profile_id: str, exc: Exception) -> None:
        if _stopped_by(exc):  # a spending limit stopped the build: not a failure, the rerun continues it
            return
        ready.failed[(profile_id, stage)] = FailedPrerequisite(
            profile_id, stage, "memory", str(exc)[:2000], retryable_cause(exc)
        )

    recoverable = (LLMError, MemorySystemError)
    try:
        build_profiles(
            system, store, retriever, profile_ids, llm=llm, links=linked, on_error=memory_failed,
            recoverable=recoverable, ledger=build_ledger,
        )
    except recoverable as exc:  # the system could not be opened: every profile's memory is missing
        for profile_id in profile_ids:
            memory_failed(profile_id, exc)


def _summarize_states(
    store: EventStore,
    roles: LLMRoles,
    prompts: PromptSet,
    profile_ids: list[str],
    ready: Prerequisites,
    notes: list[str],
    users: list[str],
) -> None:
    """The state summary S(H) of each profile, in turn; stops at a spending limit (the rerun makes the rest).
    `users`: the runs that read the summaries (one of them is charged with their usage)."""
    state_llm = roles.client("state", ready.usage.ledger("state", users))
    for profile_id in profile_ids:
        try:
            summary = summarize_profile(store, state_llm, prompts, profile_id)
        except LLMInterruptedError:
            break  # a spending limit: no summary is written for it, the rerun makes it
        except LLMError as exc:
            ready.failed[(profile_id, "state_summary")] = FailedPrerequisite(
                profile_id, "state_summary", "state", str(exc)[:2000], exc.retryable
            )
            continue
        ready.summaries[profile_id] = summary.summary_id
        if summary.n_states == 0:
            notes.append(f"the state summary of profile {profile_id} is empty (the model listed no states)")


def _stopped_by(exc: BaseException) -> bool:
    """Whether `exc` or an error in its cause chain is an LLMInterruptedError (Ctrl-C or a spending limit; a
    memory SDK wraps the client's error)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, LLMInterruptedError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
