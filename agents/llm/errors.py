"""Typed errors of the LLM layer. Messages name the role, model and endpoint, never an API key.

`retryable` says whether running the same command again can help: a refused request (HTTP 400/401/403/404)
repeats identically, a flaky endpoint or an invalid reply (never cached) may not."""

from __future__ import annotations

from graph.errors import ColabenchError


class LLMError(ColabenchError):
    """Base class of expected LLM-layer failures (shown without a stack trace by the CLI). The failure of a
    gold-bearing role (a judge's, a synthesis role's) carries gold: what the endpoint said may echo the request."""

    retryable: bool = True
    role: str = ""

    @property
    def carries_gold(self) -> bool:
        from agents.llm.settings import role_carries_gold  # settings imports this module

        return role_carries_gold(self.role)


class LLMConfigError(LLMError, ValueError):
    """The settings of a role are missing or inconsistent."""

    retryable = False


class LLMUnavailableError(LLMError):
    """The endpoint kept failing (429, 5xx, timeouts, malformed replies) after every retry, or refused the
    request outright (400/401/403/404)."""


class LLMRefusedError(LLMUnavailableError):
    """The endpoint refused the request (HTTP 400/401/403/404...): the same request would be refused again."""

    retryable = False


class LLMOutputError(LLMError):
    """The model's reply stayed invalid (not JSON, or not matching the schema) after every retry."""

    # The exchange of the last invalid reply (its request holds the earlier tries), when one was kept.
    exchange: str | None = None


class LLMInterruptedError(LLMError):
    """The run was interrupted (Ctrl-C) before this request was sent: nothing is recorded for it."""
