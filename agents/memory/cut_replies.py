"""A memory SDK's reply cut at `max_tokens` (finish_reason "length"), said as such: the JSON it holds is
incomplete because the budget ran out, not because the server ignores the response format or the model
cannot write JSON. Each SDK adapter (A-MEM, Graphiti, Mem0) checks its replies with `cut_reply_error`."""

from __future__ import annotations

from typing import Any

from agents.memory.errors import MemoryBackendError, MemoryReplyError


class CutReplyAbort(BaseException):
    """Carries the MemoryBackendError of a cut reply out of an SDK's `except Exception` blocks (Mem0 catches
    and logs a reply it cannot parse, and would go on with nothing for the pair)."""

    def __init__(self, error: MemoryBackendError) -> None:
        super().__init__(str(error))
        self.error = error


def cut_reply_error(system: str, llm: Any, what: str, reply: Any) -> MemoryBackendError | None:
    """The error for a reply cut at max_tokens (None for any other reply): names the system, the request, the
    model, the budget and the setting to raise."""
    if getattr(reply, "finish_reason", None) != "length":
        return None
    budget = getattr(getattr(llm, "settings", None), "max_tokens", None)
    model = getattr(llm, "model", "?")
    content = str(getattr(reply, "content", None) or "")
    return MemoryReplyError(
        f"{system}: the `memory` endpoint (model {model!r}) cut its reply to the {what} request at "
        f"max_tokens={budget} (finish_reason 'length'), so the reply is incomplete; raise the memory role's "
        f"max_tokens (COLABENCH_LLM_MEMORY_MAX_TOKENS) and run again. Reply ended: {content[-120:]!r}"
    )
