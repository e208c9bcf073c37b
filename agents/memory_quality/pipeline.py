"""Running the memory judges over a system's memory for some profiles: one verdict per target (expected
point, extracted memory, update point, question), each appended as a MemoryJudged event. Resumable: verdicts
already in the graph (same target, judge model, prompt and inputs) are not asked again. A judge reply that stays invalid
is a recorded invalid verdict; an endpoint failure leaves its target unjudged (counted, with the error text)
and the rerun asks again."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from agents.judging.memory_base import MemoryJudge, MemoryJudgeCall, memory_judgment_id
from agents.llm.client import LLMClient
from agents.llm.errors import LLMInterruptedError, LLMUnavailableError
from agents.memory_quality.coverage import facts_by_profile
from agents.memory_quality.judge_inputs import DEFAULT_MAX_MEMORIES, DEFAULT_QA_K, InputBuilder
from agents.memory_quality.points import load_fact_points
from agents.memory_quality.questions import QaQuestion, load_questions
from agents.prompts.registry import PromptSet
from graph.cypher_files import load_cypher
from graph.events import MemoryJudged, NewEvent
from graph.store import EventStore

Progress = Callable[[int, int], None]
ACTOR = "eval-memory"
APPEND_BATCH = 25


@dataclass
class JudgeOutcome:
    """What one pass of the memory judges did: per judge, targets, verdicts already there, new verdicts,
    invalid replies and endpoint failures (with the latest error text)."""

    targets: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    judged: dict[str, int] = field(default_factory=dict)
    invalid: dict[str, int] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)
    last_error: str | None = None
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "targets": self.targets,
            "skipped": self.skipped,
            "judged": self.judged,
            "invalid": self.invalid,
            "failed": self.failed,
            "last_error": self.last_error,
            "seconds": round(self.seconds, 2),
        }


def _calls_for(
    builder: InputBuilder, judge: MemoryJudge, profile_id: str, facts: list[Any], questions: list[QaQuestion]
) -> list[MemoryJudgeCall]:
    if judge.axis == "qa":
        return builder.qa_calls(profile_id, questions)
    if judge.axis == "integrity":
        return builder.integrity_calls(profile_id, facts)
    if judge.axis == "accuracy":
        return builder.accuracy_calls(profile_id, facts)
    return builder.update_calls(profile_id, facts)


def _existing(store: EventStore, ids: list[str]) -> set[str]:
    with store.driver.session(database=store.database) as session:
        return {r["id"] for r in session.run(load_cypher("memory_quality/judged_ids"), ids=ids)}


def run_memory_judges(
    store: EventStore,
    system: str,
    profile_ids: list[str],
    judges: list[MemoryJudge],
    llm: LLMClient,
    prompts: PromptSet,
    *,
    max_memories: int = DEFAULT_MAX_MEMORIES,
    qa_k: int = DEFAULT_QA_K,
    concurrency: int = 4,
    progress: Progress | None = None,
) -> JudgeOutcome:
    """Judge every target of the chosen judges that has no verdict yet; returns the counts."""
    started = time.perf_counter()
    outcome = JudgeOutcome()
    facts = facts_by_profile(load_fact_points(store.driver, store.database, system, profile_ids))
    builder = InputBuilder(store.driver, store.database, system, llm, prompts, store.encoder, max_memories, qa_k)
    questions: dict[str, list[QaQuestion]] = {}
    if any(j.axis == "qa" for j in judges):
        for q in load_questions(store.driver, store.database, profile_ids):
            questions.setdefault(q.profile_id, []).append(q)
    pending: list[tuple[MemoryJudge, MemoryJudgeCall]] = []
    for judge in judges:
        template = prompts[judge.template.name]
        calls = [
            c
            for pid in profile_ids
            for c in _calls_for(builder, judge, pid, facts.get(pid, []), questions.get(pid, []))
        ]
        ids = {memory_judgment_id(c, judge.axis, template): c for c in calls}
        done = _existing(store, list(ids))
        outcome.targets[judge.name] = len(calls)
        outcome.skipped[judge.name] = len(done)
        for counter in (outcome.judged, outcome.invalid, outcome.failed):
            counter[judge.name] = 0
        pending.extend((judge, c) for jid, c in ids.items() if jid not in done)
    total = len(pending)
    finished = 0
    buffer: list[MemoryJudged] = []

    def flush() -> None:
        if buffer:
            store.append([NewEvent(event, actor=ACTOR) for event in buffer])
            buffer.clear()

    if progress is not None:
        progress(0, total)
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures: dict[Future[MemoryJudged], str] = {}
        queue = iter(pending)
        try:
            while True:
                while len(futures) < max(1, concurrency) * 2:
                    nxt = next(queue, None)
                    if nxt is None:
                        break
                    judge, call = nxt
                    futures[pool.submit(judge.judge, call)] = judge.name
                if not futures:
                    break
                ready, _ = wait(list(futures), return_when=FIRST_COMPLETED)
                for future in ready:
                    name = futures.pop(future)
                    finished += 1
                    try:
                        verdict = future.result()
                    except LLMInterruptedError:
                        raise
                    except LLMUnavailableError as exc:
                        outcome.failed[name] += 1
                        outcome.last_error = str(exc)
                        continue
                    outcome.judged[name] += 1
                    outcome.invalid[name] += not verdict.valid
                    buffer.append(verdict)
                    if len(buffer) >= APPEND_BATCH:
                        flush()
                    if progress is not None:
                        progress(finished, total)
        except BaseException:
            llm.stop.set()  # Ctrl-C: requests not yet sent are not sent; verdicts already in are kept
            for future in futures:
                future.cancel()
            raise
        finally:
            flush()
    if progress is not None:
        progress(finished, total)
    outcome.seconds = time.perf_counter() - started
    return outcome
