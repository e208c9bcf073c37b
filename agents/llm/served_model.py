"""The model that answered, checked against the configured one. A reply's `model` field names what the server
actually ran (llama.cpp names its GGUF file, vLLM the served name); a run record that names a model which
never answered would lie, so each role counts the names its endpoint replied with and a mismatch is said in
one line (an error instead under `strict_model`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.llm.errors import LLMError


class LLMModelMismatchError(LLMError):
    """The endpoint answered as another model than the configured one, and the role is strict about it."""

    retryable = False


def _normal(name: str) -> str:
    # A server may name the file it loaded: compare the last path part, without a .gguf suffix, ignoring case.
    base = name.strip().replace("\\", "/").rsplit("/", 1)[-1].casefold()
    return base[: -len(".gguf")] if base.endswith(".gguf") else base


def same_model(configured: str | None, served: str | None) -> bool:
    """Whether the reply's model name names the configured model (an empty reply name tells nothing: True)."""
    if not served or not configured:
        return True
    return _normal(configured) == _normal(served)


def mismatch_text(role: str, configured: str | None, served: str, base_url: str) -> str:
    """The one line saying which model answered instead of the configured one, and what to do."""
    return (
        f"role {role!r}: configured model {configured!r}, but {base_url} answered as {served!r}; set the role's "
        "model to what the server serves (or serve the configured one)"
    )


def mismatch_lines(usage: Mapping[str, Any]) -> list[str]:
    """One line per role and model pair whose replies named another model than the configured one (from the
    usage per role, UsageLedger.as_dict()), with how many replies did."""
    lines: list[str] = []
    for role, counters in sorted(usage.items()):
        if role == "total" or not isinstance(counters, Mapping):
            continue
        for pair, n in sorted((counters.get("model_mismatches") or {}).items()):
            configured, _, served = pair.partition(" -> ")
            lines.append(
                f"role {role!r}: configured model {configured!r}, but {n} repl{'y' if n == 1 else 'ies'} came from "
                f"{served!r} (the run record's usage.{role}.served_models names what answered; --strict-model "
                "fails instead)"
            )
    return lines
