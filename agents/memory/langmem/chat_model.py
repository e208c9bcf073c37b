"""LangMem's chat model as the project's LLM client: LangMem (through trustcall) binds its memory tools to a
LangChain chat model and reads the tool calls of the reply; this model sends every such request through the
`memory` role's `agents.llm.client.LLMClient` (its cache, retries, usage ledger and exchange store), so no
LangChain provider and no key of its own is involved. A reply cut at max_tokens stops the pair (CutReplyAbort,
which trustcall's `except Exception` blocks do not catch)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, convert_to_openai_messages
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

from agents.memory.cut_replies import CutReplyAbort, cut_reply_error
from agents.memory.errors import MemoryReplyError


class SdkCallAbort(BaseException):
    """Carries a failed request (an LLMError after the client's retries, or any other error) out of trustcall,
    whose `except Exception` blocks would turn it into a "fix the validation error" retry or an empty result."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def openai_tool_choice(choice: Any, tools: Sequence[dict[str, Any]]) -> Any:
    """LangChain's tool_choice in the OpenAI protocol: "any" -> "required", a tool's name -> that function."""
    if choice is None or choice in ("auto", "none", "required"):
        return choice
    if choice == "any" or choice is True:
        return "required"
    if isinstance(choice, str):
        return {"type": "function", "function": {"name": choice}}
    return choice


class ProjectChatModel(BaseChatModel):
    """A LangChain chat model over the project's client (`chat(messages, tools=..., tool_choice=...)`)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Any
    system: str = "langmem"
    # every request that failed since the caller last cleared it (a backstop should an abort be caught anyway)
    failures: list[Exception] = Field(default_factory=list)
    # since the caller last cleared them: tool calls of a reply naming a tool its request did not offer (call id ->
    # name), and the names trustcall's repair requests had them fixed to (`PatchFunctionName`: call id -> name)
    unoffered: dict[str, str] = Field(default_factory=dict)
    renamed: dict[str, str] = Field(default_factory=dict)

    def clear_pair(self) -> None:
        """Forget the failures and tool calls recorded so far (a new pair starts)."""
        self.failures.clear()
        self.unoffered.clear()
        self.renamed.clear()

    def dropped_calls(self, offered: set[str]) -> dict[str, str]:
        """The recorded calls of tools not offered that no repair renamed to one of `offered` (call id -> name):
        trustcall drops them after its repair attempts without a log (its `existing_schema_policy=False`)."""
        return {i: n for i, n in self.unoffered.items() if self.renamed.get(i) not in offered}

    @property
    def _llm_type(self) -> str:
        return "colabench-project-client"

    def bind_tools(  # type: ignore[override]
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: Any = None,
        **kwargs: Any,
    ) -> Runnable[Any, BaseMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=openai_tool_choice(tool_choice, formatted), **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools = kwargs.get("tools") or None
        tool_choice = kwargs.get("tool_choice") if tools else None
        payload = convert_to_openai_messages(messages)
        try:
            reply = self.client.chat(payload if isinstance(payload, list) else [payload], tools=tools,
                                     tool_choice=tool_choice)
        except Exception as exc:
            self.failures.append(exc)
            raise SdkCallAbort(exc) from exc
        cut = cut_reply_error(f"memory system {self.system!r}", self.client, "LangMem extraction", reply)
        if cut is not None:
            raise CutReplyAbort(cut)
        calls = []
        for call in reply.tool_calls:
            try:
                args = json.loads(call.arguments or "{}")
            except json.JSONDecodeError as exc:
                raise CutReplyAbort(MemoryReplyError(
                    f"memory system {self.system!r}: the `memory` endpoint's tool call {call.name!r} has arguments "
                    f"that are not JSON ({exc}): {call.arguments[:200]!r}"
                )) from None
            calls.append({"name": call.name, "args": args if isinstance(args, dict) else {}, "id": call.id,
                          "type": "tool_call"})
        self._note_tool_names(tools or [], calls)
        message = AIMessage(
            content=reply.content or "",
            tool_calls=calls,
            usage_metadata={"input_tokens": reply.tokens_in, "output_tokens": reply.tokens_out,
                            "total_tokens": reply.tokens_in + reply.tokens_out},
            response_metadata={"finish_reason": reply.finish_reason, "model_name": reply.model},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _note_tool_names(self, tools: Sequence[dict[str, Any]], calls: list[dict[str, Any]]) -> None:
        offered = {str((t.get("function") or {}).get("name")) for t in tools}
        for call in calls:
            if call["name"] == "PatchFunctionName" and "PatchFunctionName" in offered:
                fixed = call["args"].get("fixed_name")
                if fixed:
                    self.renamed[str(call["args"].get("json_doc_id"))] = str(fixed)
            elif call["name"] not in offered:
                self.unoffered[str(call["id"])] = str(call["name"])
