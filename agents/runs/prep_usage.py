"""Who pays for a batch's preparation: the LLM requests of the memory builds and state summaries a batch makes
before answering (the `memory` and `state` roles) go into the run record of one run that needed them.

A build or a set of summaries serves every run of the batch that reads it; its usage is counted once, in the
first of those runs (plan order) with an attempt to answer in this invocation (the runs whose attempts made it
build), so the runs' records summed per role give what the CLI printed for the batch.

A spending limit reached while the batch prepares stops it before any run starts: no run record is written, and
the preparation's usage is given per step instead (`spent_by_step`, the BatchReport's `preparation` and the CLI's
stop message, `describe_preparation`), so the records and that account still sum to the batch's usage."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agents.llm.accounting import UsageLedger


class PreparationUsage:
    """One ledger per preparation step (a memory system's build, the state summaries), each charged to one run."""

    def __init__(self, to_answer: Mapping[str, set[str]]) -> None:
        self._to_answer = to_answer
        self._ledgers: dict[str, UsageLedger] = {}
        self._payer: dict[str, str | None] = {}

    def ledger(self, step: str, run_ids: Iterable[str]) -> UsageLedger:
        """The ledger of `step`, serving the runs `run_ids` (in plan order): the first of them with an attempt
        to answer pays for it (none: the first of them)."""
        if step not in self._ledgers:
            runs = list(run_ids)
            self._ledgers[step] = UsageLedger()
            self._payer[step] = next((r for r in runs if self._to_answer.get(r)), runs[0] if runs else None)
        return self._ledgers[step]

    def with_run(self, run_id: str, usage: UsageLedger) -> UsageLedger:
        """A new ledger: the run's own `usage` plus the preparation steps it pays for (the ledgers given stay
        as they are, so the batch total, which counts each of them once, is unchanged)."""
        out = UsageLedger()
        out.merge(usage)
        for step, payer in self._payer.items():
            if payer == run_id:
                out.merge(self._ledgers[step])
        return out

    def spent_by_step(self) -> dict[str, dict[str, Any]]:
        """The usage of each step that asked anything (UsageLedger.as_dict(): per role and `total`), by step
        (`memory:<system>`, `state`)."""
        out: dict[str, dict[str, Any]] = {}
        for step, ledger in self._ledgers.items():
            usage = ledger.as_dict()
            if usage["total"]["calls"] or usage["total"]["endpoint_requests"]:
                out[step] = usage
        return out


def describe_preparation(preparation: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One line per preparation step and role: what it spent (calls, endpoint requests, tokens, cost)."""
    lines: list[str] = []
    for step, usage in preparation.items():
        for role, c in usage.items():
            if role == "total":
                continue
            cost = c.get("cost_usd")
            lines.append(
                f"{step}: {role} role {c.get('calls', 0)} calls ({c.get('endpoint_requests', 0)} endpoint requests, "
                f"{c.get('retries', 0)} retries), {c.get('tokens_in', 0):,} tokens in / {c.get('tokens_out', 0):,} "
                "out, " + (f"${cost:.4f}" if cost is not None else "cost n/a")
            )
    return lines
