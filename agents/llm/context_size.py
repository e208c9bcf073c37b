"""A role's context size, asked of the server before a request is sent, so a request the server would refuse
for its size is refused here with both sizes, never sent.

The size is the `context_tokens` setting when given, else what llama.cpp's server reports at `GET /props`
(`default_generation_settings.n_ctx`, per slot; beside `/v1`), else unknown (nothing is checked). A request
is refused only when its message text alone, counted by the server's own `POST /tokenize`, already fills the
context: the chat template only adds tokens, so the server would refuse it too. Text shorter in UTF-8 bytes
than the context is never counted (a token is at least one byte), so a normal request costs no extra call."""

from __future__ import annotations

import json
from typing import Any

import httpx

from agents.llm.errors import LLMRefusedError
from query.model_tokens import server_root


class LLMContextExceededError(LLMRefusedError):
    """The request is larger than the role's context: refused locally, never sent (a rerun repeats it)."""


def probe_context_tokens(base_url: str, api_key: str = "", timeout_s: float = 5.0) -> int | None:
    """The per-slot context a llama.cpp server reports at `/props`, or None when the server does not say."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        reply = httpx.get(server_root(base_url) + "/props", timeout=timeout_s, headers=headers)
        if reply.status_code != 200:
            return None
        body = reply.json()
    except (httpx.HTTPError, ValueError):
        return None
    settings = body.get("default_generation_settings") if isinstance(body, dict) else None
    for source in (settings, body):
        value = source.get("n_ctx") if isinstance(source, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def request_text(request: dict[str, Any]) -> str:
    """The text of a request's messages and tools (what its prompt tokens are made of, template aside)."""
    parts: list[str] = []
    for message in request.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif content is not None:
            parts.append(json.dumps(content, ensure_ascii=False))
        if message.get("tool_calls"):
            parts.append(json.dumps(message["tool_calls"], ensure_ascii=False))
    if request.get("tools"):
        parts.append(json.dumps(request["tools"], ensure_ascii=False))
    return "\n".join(parts)


def count_server_tokens(base_url: str, text: str, api_key: str = "", timeout_s: float = 10.0) -> int | None:
    """Tokens of `text` by the server's llama.cpp-form `/tokenize`, or None when it has none."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        reply = httpx.post(
            server_root(base_url) + "/tokenize",
            json={"content": text, "add_special": False},
            timeout=timeout_s,
            headers=headers,
        )
        if reply.status_code != 200:
            return None
        tokens = reply.json().get("tokens")
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return len(tokens) if isinstance(tokens, list) else None


def oversized_text(role: str, base_url: str, tokens: int, context: int) -> str:
    """The one line refusing a request larger than the context, with both sizes."""
    return (
        f"role {role!r}: the request's messages alone are {tokens:,} tokens (counted by the server's /tokenize) "
        f"and the context of {base_url} is {context:,} tokens per slot: refused here, not sent. Shorten the "
        "inputs (e.g. --judge-context-chars for a judge) or serve a larger context (llama-server -c)"
    )
