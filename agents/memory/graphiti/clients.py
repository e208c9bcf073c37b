"""Graphiti's three model clients, backed by the project's own: the LLM client sends every Graphiti prompt
through the `memory` role's `agents.llm.client.LLMClient` (cached by request, counted in its ledger), the
embedder and the reranker use the project's encoder (no hub download, no second model)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any, Literal

import numpy as np
from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client.client import LLMClient as GraphitiLLMClient
from graphiti_core.llm_client.config import DEFAULT_MAX_TOKENS, LLMConfig, ModelSize
from graphiti_core.prompts.models import Message
from pydantic import BaseModel, ValidationError

from agents.memory.cut_replies import cut_reply_error
from agents.memory.errors import MemoryBackendError

ResponseMode = Literal["json_schema", "json_object"]


def response_format_for(response_model: type[BaseModel] | None, mode: ResponseMode) -> dict[str, Any]:
    """OpenAI structured output for a Graphiti response model: its JSON schema (named after the model) in
    `json_schema` mode, else plain `json_object` (Graphiti also writes the schema into the prompt)."""
    if response_model is None or mode == "json_object":
        return {"type": "json_object"}
    return {
        "type": "json_schema",
        "json_schema": {"name": response_model.__name__, "schema": response_model.model_json_schema()},
    }


class ProjectLLMClient(GraphitiLLMClient):
    """Graphiti's LLM client interface over the project's client (`chat(messages, response_format=...)`).

    Graphiti caching stays off (the project's client caches); calls run in a worker thread, so Graphiti's own
    concurrency applies within the role's concurrency limit. A reply that is not the JSON object the response
    model describes fails the episode with MemoryBackendError (never silently degraded); every such error is
    also kept in `raised`, so an episode Graphiti finished after catching one still fails."""

    def __init__(self, llm: Any, mode: ResponseMode = "json_schema") -> None:
        super().__init__(LLMConfig(model=str(getattr(llm, "model", "project")), api_key="unused"), cache=False)
        self.llm = llm
        self.mode: ResponseMode = mode
        self.raised: list[str] = []

    async def _generate_response(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_size: ModelSize = ModelSize.medium,
        *,
        model: str | None = None,
    ) -> dict[str, Any]:
        try:
            return await self._checked_response(messages, response_model)
        except MemoryBackendError as exc:
            self.raised.append(str(exc))
            raise

    async def _checked_response(
        self, messages: list[Message], response_model: type[BaseModel] | None
    ) -> dict[str, Any]:
        if self.llm is None:
            raise MemoryBackendError(
                "memory system 'graphiti' asked its LLM, and no endpoint is configured for the `memory` role"
            )
        chat = [{"role": m.role, "content": m.content} for m in messages]
        reply = await asyncio.to_thread(
            self.llm.chat, chat, response_format=response_format_for(response_model, self.mode)
        )
        name = response_model.__name__ if response_model is not None else "JSON object"
        cut = cut_reply_error("memory system 'graphiti'", self.llm, name, reply)
        if cut is not None:
            raise cut
        try:
            value = json.loads(reply.content or "")
        except json.JSONDecodeError as exc:
            raise MemoryBackendError(
                f"memory system 'graphiti': the LLM reply to a {name} request is not JSON: {exc}"
            ) from exc
        if not isinstance(value, dict):
            raise MemoryBackendError(f"memory system 'graphiti': the LLM reply to a {name} request is not an object")
        if response_model is not None:
            try:
                response_model.model_validate(value)
            except ValidationError as exc:
                raise MemoryBackendError(
                    f"memory system 'graphiti': the LLM reply does not match {name}: {exc.errors()[:3]}"
                ) from exc
        return value


class EncoderEmbedder(EmbedderClient):
    """Graphiti's embedder as the project's encoder (L2-normalised vectors of `encoder.dim`)."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder

    async def create(self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]) -> list[float]:
        if isinstance(input_data, str):
            text = input_data
        elif isinstance(input_data, list) and input_data and isinstance(input_data[0], str):
            text = input_data[0]
        else:
            raise MemoryBackendError("memory system 'graphiti': the project's encoder embeds text, not tokens")
        return [float(x) for x in self.encoder.encode([text])[0]]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        if not input_data_list:
            return []
        vectors = self.encoder.encode(list(input_data_list))
        return [[float(x) for x in row] for row in vectors]


class EncoderReranker(CrossEncoderClient):
    """Graphiti's cross-encoder slot filled without a cross-encoder: passages ranked by the cosine of the
    project's encoder (a local bi-encoder; Graphiti's default rerankers call a hosted model or a hub)."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        if not passages:
            return []
        vectors = self.encoder.encode([query, *passages])
        scores = np.asarray(vectors[1:]) @ np.asarray(vectors[0])
        ranked = sorted(zip(passages, (float(s) for s in scores), strict=True), key=lambda p: -p[1])
        return ranked
