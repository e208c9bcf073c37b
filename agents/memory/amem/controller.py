"""A-MEM's LLM controller, routed through the project's LLM client (cached, counted), failing loudly.

A-MEM asks for OpenAI `json_schema` structured output and, when a call fails or the reply does not parse,
quietly carries on with empty keywords and no evolution (`analyze_content` and `process_memory` catch every
Exception). That would silently change what the baseline means, so this controller checks every reply
against the schema A-MEM asked for and aborts the note with `AmemAbort`, a BaseException that A-MEM's
`except Exception` blocks cannot swallow; the system turns it into a MemoryBackendError.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from agents.llm.errors import LLMError
from agents.memory.cut_replies import cut_reply_error
from agents.memory.errors import MemoryBackendError

# A-MEM's own system message for every call (llm_controller.OpenAIController).
SYSTEM_MESSAGE = "You must respond with a JSON object."


class AmemAbort(BaseException):
    """Carries a MemoryBackendError out of A-MEM's `except Exception` blocks."""

    def __init__(self, error: MemoryBackendError) -> None:
        super().__init__(str(error))
        self.error = error


class AnalysisReply(BaseModel):
    """The reply to A-MEM's note-construction prompt (`analyze_content`)."""

    model_config = ConfigDict(extra="allow")
    keywords: list[str]
    context: str
    tags: list[str]


class EvolutionReply(BaseModel):
    """The reply to A-MEM's memory-evolution prompt (`process_memory`)."""

    model_config = ConfigDict(extra="forbid")
    should_evolve: bool
    actions: list[str]
    suggested_connections: list[str]
    tags_to_update: list[str]
    new_context_neighborhood: list[str]
    new_tags_neighborhood: list[list[str]]


def reply_model(response_format: dict[str, Any] | None) -> type[BaseModel] | None:
    """The reply model of the schema A-MEM asked for (None for a request A-MEM 0.2.6 never makes)."""
    schema = ((response_format or {}).get("json_schema") or {}).get("schema") or {}
    properties = schema.get("properties") or {}
    if "should_evolve" in properties:
        return EvolutionReply
    if "keywords" in properties:
        return AnalysisReply
    return None


class RoutedController:
    """Stands in for A-MEM's `OpenAIController`: `get_completion(prompt, response_format)` is one call of the
    project's LLM client (role `memory`) with A-MEM's messages and response format, checked against it."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.calls = 0

    def get_completion(
        self, prompt: str, response_format: dict[str, Any] | None = None, temperature: float = 1.0, **_: Any
    ) -> str:
        # temperature: the memory role's settings decide sampling, as for every other LLM call of the project
        kind = reply_model(response_format)
        what = kind.__name__ if kind else "reply"
        self.calls += 1
        try:
            reply = self.llm.chat(
                [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": prompt}],
                response_format=response_format,
            )
        except LLMError as exc:
            raise AmemAbort(self._refused(exc, response_format)) from exc
        content = reply.content or ""
        cut = cut_reply_error("A-MEM", self.llm, what, reply)
        if cut is not None:
            raise AmemAbort(cut)
        if kind is not None:
            try:
                kind.model_validate(json.loads(content))
            except (json.JSONDecodeError, ValidationError, TypeError) as exc:
                raise AmemAbort(
                    MemoryBackendError(
                        f"A-MEM: the `memory` endpoint (model {getattr(self.llm, 'model', '?')!r}) answered A-MEM's "
                        f"{what} request with content that does not match the `json_schema` A-MEM asked for "
                        f"({_short(str(exc))}); the server probably ignores OpenAI `json_schema` structured "
                        f"output. A-MEM would silently continue with empty keywords and no evolution, so the "
                        f"build stops here. Reply began: {content[:120]!r}"
                    )
                ) from exc
        return content

    def _refused(self, exc: LLMError, response_format: dict[str, Any] | None) -> MemoryBackendError:
        text = str(exc)
        hint = ""
        if response_format and response_format.get("type") == "json_schema" and "HTTP 4" in text:
            hint = (
                " A-MEM requests OpenAI `json_schema` structured output (response_format type json_schema); "
                "an endpoint that rejects it cannot build A-MEM's notes: use one that supports it."
            )
        return MemoryBackendError(
            f"A-MEM: its LLM call failed ({text}).{hint} A-MEM would silently continue with empty keywords and "
            "no evolution, so the build stops here and nothing of this pair is written."
        )


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
