"""Usage accounting per role: calls, cache hits, endpoint requests, retries, rate limiting, tokens, the
endpoint's prefix-cache hits and estimated cost."""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel, Field


class RoleUsage(BaseModel):
    """Counters of one role. Tokens of cached replies are counted in `tokens_*` but not in `billed_*`."""

    calls: int = 0
    cache_hits: int = 0
    endpoint_requests: int = 0
    retries: int = 0
    invalid_replies: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    billed_tokens_in: int = 0
    billed_tokens_out: int = 0
    cost_usd: float | None = None
    seconds: float = 0.0
    # reply `model` name -> replies from the endpoint naming it (cache hits not counted): what actually answered
    served_models: dict[str, int] = Field(default_factory=dict)
    # "configured -> served" -> replies whose model name was not the configured model's
    model_mismatches: dict[str, int] = Field(default_factory=dict)
    # HTTP 429 replies received, seconds slept before retries (Retry-After or backoff), and seconds waited for a
    # free request slot (the role's and the endpoint's concurrency, the endpoint's requests-per-minute limit).
    rate_limited: int = 0
    backoff_wait_s: float = 0.0
    limiter_wait_s: float = 0.0
    # The endpoint's prefix cache: prompt tokens of the replies whose usage said how many were cached, and that
    # many cached tokens. Replies that said nothing are in neither (the hit rate is over replies that said).
    prefix_prompt_tokens: int = 0
    prefix_cached_tokens: int = 0

    def add(self, other: RoleUsage) -> None:
        for name in ("calls", "cache_hits", "endpoint_requests", "retries", "invalid_replies", "rate_limited"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("tokens_in", "tokens_out", "billed_tokens_in", "billed_tokens_out"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("prefix_prompt_tokens", "prefix_cached_tokens"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.seconds += other.seconds
        self.backoff_wait_s += other.backoff_wait_s
        self.limiter_wait_s += other.limiter_wait_s
        for name, n in other.served_models.items():
            self.served_models[name] = self.served_models.get(name, 0) + n
        for pair, n in other.model_mismatches.items():
            self.model_mismatches[pair] = self.model_mismatches.get(pair, 0) + n
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd


class UsageLedger:
    """Thread-safe usage counters keyed by role; one ledger per run (or per CLI invocation)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._roles: dict[str, RoleUsage] = {}

    def _role(self, role: str) -> RoleUsage:
        return self._roles.setdefault(role, RoleUsage())

    def record_call(
        self,
        role: str,
        *,
        cached: bool,
        tokens_in: int,
        tokens_out: int,
        price_in_per_mtok: float | None,
        price_out_per_mtok: float | None,
        price_cached_per_mtok: float | None = None,
        seconds: float = 0.0,
        served_model: str | None = None,
        configured_model: str | None = None,
        prompt_cached_tokens: int | None = None,
    ) -> None:
        """Count one logical call (one reply used), cached or not, and its wall time (retries included);
        `served_model` is the model name an endpoint reply gave, counted as a mismatch when it does not name
        `configured_model`; `prompt_cached_tokens` is how many of its prompt tokens the endpoint's prefix cache
        held (None: the endpoint did not say)."""
        from agents.llm.served_model import same_model

        with self._lock:
            usage = self._role(role)
            usage.calls += 1
            usage.seconds += seconds
            usage.tokens_in += tokens_in
            usage.tokens_out += tokens_out
            if cached:
                usage.cache_hits += 1
                return
            if served_model:
                usage.served_models[served_model] = usage.served_models.get(served_model, 0) + 1
                if not same_model(configured_model, served_model):
                    pair = f"{configured_model} -> {served_model}"
                    usage.model_mismatches[pair] = usage.model_mismatches.get(pair, 0) + 1
            usage.billed_tokens_in += tokens_in
            usage.billed_tokens_out += tokens_out
            if prompt_cached_tokens is not None:
                usage.prefix_prompt_tokens += tokens_in
                usage.prefix_cached_tokens += min(prompt_cached_tokens, tokens_in)
            if price_in_per_mtok is not None and price_out_per_mtok is not None:
                # prompt tokens the endpoint's prefix cache served are billed at the cached price when one is set
                hit = min(prompt_cached_tokens or 0, tokens_in) if price_cached_per_mtok is not None else 0
                cost = (
                    (tokens_in - hit) * price_in_per_mtok
                    + hit * (price_cached_per_mtok or 0.0)
                    + tokens_out * price_out_per_mtok
                ) / 1_000_000
                usage.cost_usd = (usage.cost_usd or 0.0) + cost

    def record_request(self, role: str, *, retry: bool) -> None:
        """Count one HTTP request sent to the endpoint (a retry is also a request)."""
        with self._lock:
            usage = self._role(role)
            usage.endpoint_requests += 1
            if retry:
                usage.retries += 1

    def record_rate_limited(self, role: str) -> None:
        """Count one HTTP 429 reply."""
        with self._lock:
            self._role(role).rate_limited += 1

    def record_wait(self, role: str, *, backoff_s: float = 0.0, limiter_s: float = 0.0) -> None:
        """Add seconds slept before a retry (`backoff_s`) or waited for a request slot (`limiter_s`)."""
        with self._lock:
            usage = self._role(role)
            usage.backoff_wait_s += backoff_s
            usage.limiter_wait_s += limiter_s

    def record_invalid(self, role: str) -> None:
        with self._lock:
            self._role(role).invalid_replies += 1

    def snapshot(self) -> dict[str, RoleUsage]:
        """A copy of the counters per role."""
        with self._lock:
            return {role: usage.model_copy() for role, usage in sorted(self._roles.items())}

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready counters per role plus a `total` entry."""
        snap = self.snapshot()
        total = RoleUsage()
        for usage in snap.values():
            total.add(usage)
        out: dict[str, Any] = {role: usage.model_dump() for role, usage in snap.items()}
        out["total"] = total.model_dump()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UsageLedger:
        """A ledger holding the per-role counters of `as_dict()` output (the `total` entry is ignored)."""
        ledger = cls()
        for role, counters in data.items():
            if role != "total" and isinstance(counters, dict):
                ledger._roles[role] = RoleUsage.model_validate(counters)
        return ledger

    def merge(self, other: UsageLedger) -> None:
        """Add another ledger's counters to this one."""
        for role, usage in other.snapshot().items():
            with self._lock:
                self._role(role).add(usage)

    def total_endpoint_requests(self) -> int:
        with self._lock:
            return sum(u.endpoint_requests for u in self._roles.values())


def prefix_hit_rate(usage: dict[str, Any] | RoleUsage) -> float | None:
    """Cached / prompt tokens over the replies whose endpoint said how many were cached; None when none said."""
    data = usage.model_dump() if isinstance(usage, RoleUsage) else usage
    prompt = int(data.get("prefix_prompt_tokens") or 0)
    if prompt <= 0:
        return None
    return int(data.get("prefix_cached_tokens") or 0) / prompt
