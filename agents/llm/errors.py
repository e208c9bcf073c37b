"""Typed errors of the LLM layer. Messages name the role, model and endpoint, never an API key."""

from __future__ import annotations


class LLMError(Exception):
    """Base class of expected LLM-layer failures (shown without a stack trace by the CLI)."""


class LLMConfigError(LLMError, ValueError):
    """The settings of a role are missing or inconsistent."""


class LLMUnavailableError(LLMError):
    """The endpoint kept failing (429, 5xx, timeouts, malformed replies) after every retry, or refused the
    request outright (400/401/403/404)."""


class LLMOutputError(LLMError):
    """The model's reply stayed invalid (not JSON, or not matching the schema) after every retry."""
