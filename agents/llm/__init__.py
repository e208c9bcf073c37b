"""The LLM layer: per-role settings, the openai SDK client with retries, structured output, a response
cache and usage accounting. Every LLM call of the project goes through `LLMClient`."""

from agents.llm.accounting import RoleUsage, UsageLedger
from agents.llm.cache import ResponseCache
from agents.llm.client import ChatReply, LLMClient, StructuredReply, ToolCallRequest
from agents.llm.errors import LLMConfigError, LLMError, LLMOutputError, LLMUnavailableError
from agents.llm.settings import ROLES, LLMGlobalSettings, LLMRoleSettings, load_role_settings

__all__ = [
    "ROLES",
    "ChatReply",
    "LLMClient",
    "LLMConfigError",
    "LLMError",
    "LLMGlobalSettings",
    "LLMOutputError",
    "LLMRoleSettings",
    "LLMUnavailableError",
    "ResponseCache",
    "RoleUsage",
    "StructuredReply",
    "ToolCallRequest",
    "UsageLedger",
    "load_role_settings",
]
