"""What the endpoint traffic of a run looked like, per role, in words: rate limiting (HTTP 429s, retries, time
slept before retries, time waited for a request slot) and the endpoint's prefix cache (cached / prompt tokens).
Used by the CLI's closing lines and the report (`agents/reports/sections/llm_traffic.py`)."""

from __future__ import annotations

from typing import Any

from agents.llm.accounting import prefix_hit_rate

PREFIX_UNKNOWN = "n/a"  # the endpoint's replies said nothing about cached prompt tokens


def sent_roles(usage: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(role, counters) of the roles that sent at least one request, by role name; `total` left out."""
    return [
        (role, counters)
        for role, counters in sorted(usage.items())
        if role != "total" and isinstance(counters, dict) and counters.get("endpoint_requests", 0)
    ]


def hit_rate_text(counters: dict[str, Any]) -> str:
    rate = prefix_hit_rate(counters)
    return PREFIX_UNKNOWN if rate is None else f"{rate * 100:.1f}%"


def traffic_row(role: str, counters: dict[str, Any]) -> dict[str, Any]:
    """One role's traffic figures, JSON-ready (the report's table rows)."""
    rate = prefix_hit_rate(counters)
    return {
        "role": role,
        "endpoint_requests": int(counters.get("endpoint_requests", 0)),
        "retries": int(counters.get("retries", 0)),
        "rate_limited": int(counters.get("rate_limited", 0)),
        "backoff_wait_s": round(float(counters.get("backoff_wait_s", 0.0)), 3),
        "limiter_wait_s": round(float(counters.get("limiter_wait_s", 0.0)), 3),
        "prefix_prompt_tokens": int(counters.get("prefix_prompt_tokens", 0)),
        "prefix_cached_tokens": int(counters.get("prefix_cached_tokens", 0)),
        "prefix_hit_rate": None if rate is None else round(rate, 4),
    }


def traffic_lines(usage: dict[str, Any]) -> list[str]:
    """Two lines for a command's closing summary (none when nothing was sent): rate limiting per role, and the
    endpoint's prefix-cache hit rate per role ("n/a" where the endpoint does not say)."""
    roles = sent_roles(usage)
    if not roles:
        return []
    limits = "; ".join(
        f"{role} {c.get('rate_limited', 0)} x HTTP 429, {c.get('retries', 0)} retries, "
        f"{float(c.get('backoff_wait_s', 0.0)):.1f} s backing off, "
        f"{float(c.get('limiter_wait_s', 0.0)):.1f} s waiting for a slot"
        for role, c in roles
    )
    prefix = ", ".join(f"{role} {hit_rate_text(c)}" for role, c in roles)
    return [
        f"rate limits (per role): {limits}",
        f"endpoint prefix cache (cached / prompt tokens): {prefix}"
        + (" (n/a: the endpoint does not say)" if PREFIX_UNKNOWN in prefix else ""),
    ]
