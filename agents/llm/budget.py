"""Spending limits of one command: `--max-cost USD` and `--max-tokens N`.

The limit is checked before every request is sent (a retry is a request too) against what this invocation has
spent so far: the tokens the endpoint billed (prompt + completion; replies from the response cache cost
nothing) and their cost from the price table. Once spending reaches a limit no new request is sent: the request
raises `LLMBudgetReachedError`, an `LLMInterruptedError`, so the caller drops the unfinished work exactly as
after Ctrl-C (nothing of it is written) and the command ends as an incomplete, resumable run. Requests already
in flight when the limit is reached still finish, so spending can pass a limit by at most what the requests in
flight at that moment cost: one per concurrently sending thread (at most the role's `concurrency`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.llm.errors import LLMInterruptedError


class LLMBudgetReachedError(LLMInterruptedError):
    """A spending limit was reached before this request was sent: nothing is recorded for it."""


@dataclass(frozen=True)
class Spent:
    tokens: int
    cost_usd: float | None


def spent_of(usage: dict[str, Any]) -> Spent:
    """Billed tokens and cost of a UsageLedger.as_dict() total."""
    total = usage.get("total", {})
    tokens = int(total.get("billed_tokens_in", 0)) + int(total.get("billed_tokens_out", 0))
    cost = total.get("cost_usd")
    return Spent(tokens, None if cost is None else float(cost))


class SpendingBudget:
    """The limits and, once one is reached, why. `spent` reads what the command spent so far."""

    def __init__(
        self, *, max_cost_usd: float | None = None, max_tokens: int | None = None, spent: Callable[[], Spent]
    ) -> None:
        self.max_cost_usd = max_cost_usd
        self.max_tokens = max_tokens
        self._spent = spent
        self._lock = threading.Lock()
        self.reason: str | None = None

    @property
    def active(self) -> bool:
        return self.max_cost_usd is not None or self.max_tokens is not None

    def describe(self) -> str:
        parts = []
        if self.max_cost_usd is not None:
            parts.append(f"--max-cost {self.max_cost_usd:g} USD")
        if self.max_tokens is not None:
            parts.append(f"--max-tokens {self.max_tokens:,}")
        return ", ".join(parts)

    def check(self) -> str | None:
        """None while under every limit; else the reason (also kept in `reason`, the first one found)."""
        with self._lock:
            if self.reason is not None:
                return self.reason
            now = self._spent()
            if self.max_tokens is not None and now.tokens >= self.max_tokens:
                self.reason = f"budget reached: {now.tokens:,} tokens spent of --max-tokens {self.max_tokens:,}"
            elif self.max_cost_usd is not None and (now.cost_usd or 0.0) >= self.max_cost_usd:
                self.reason = (
                    f"budget reached: ${now.cost_usd or 0.0:.4f} spent of --max-cost {self.max_cost_usd:g} USD"
                )
            return self.reason

    def before_request(self, role: str) -> None:
        """Raise LLMBudgetReachedError when a limit is reached (the request is then not sent)."""
        reason = self.check()
        if reason is not None:
            error = LLMBudgetReachedError(f"role {role!r}: not sent, {reason}")
            error.role = role
            raise error
