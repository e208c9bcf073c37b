"""Mem0's LLM as the project's LLM client: every call Mem0 makes goes through `LLMClient.chat` (its cache,
retries and usage ledger)."""

from __future__ import annotations

import json
from typing import Any

from mem0.llms.base import LLMBase

from agents.memory.cut_replies import CutReplyAbort, cut_reply_error


class ProjectLLMConfig:
    """The config Mem0's LLM factory builds for this provider: the live client and its model name."""

    def __init__(self, client: Any = None, model: str | None = None, **_: Any) -> None:
        self.client = client
        self.model = model or getattr(client, "model", "memory")


class ProjectLLM(LLMBase):
    """`generate_response` as Mem0's OpenAI provider answers: the reply text, or text and tool calls."""

    def __init__(self, config: ProjectLLMConfig) -> None:
        super().__init__(config)
        self.client = config.client

    def generate_response(
        self,
        messages: list[dict[str, str]],
        response_format: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str = "auto",
        **kwargs: Any,
    ) -> Any:
        reply = self.client.chat(
            messages,
            tools=tools,
            tool_choice=tool_choice if tools else None,
            response_format=response_format,
        )
        cut = cut_reply_error("memory system 'mem0'", self.client, "Mem0 " + ("tool" if tools else "extraction"), reply)
        if cut is not None:
            raise CutReplyAbort(cut)  # Mem0 would log the unparsable JSON and go on with nothing for the pair
        if not tools:
            return reply.content or ""
        return {
            "content": reply.content,
            "tool_calls": [
                {"name": call.name, "arguments": json.loads(call.arguments or "{}")} for call in reply.tool_calls
            ],
        }
