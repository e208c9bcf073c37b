"""Mem0 on its own local Qdrant: the reference the graph vector store is checked against (benchmark, tests).

Mem0's real `qdrant` provider in qdrant-client's embedded mode (a collection under a local path), with the
project's encoder as its embedder so both stores hold the same vectors. Its LLM is the project's provider with
no client: only `add(..., infer=False)` and `search` are meant to run on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mem0 import Memory
from mem0.configs.base import MemoryConfig
from mem0.embeddings.configs import EmbedderConfig
from mem0.llms.configs import LlmConfig
from mem0.vector_stores.configs import VectorStoreConfig

from agents.memory.mem0.sdk import EMBEDDER_PROVIDER, LLM_PROVIDER
from agents.memory.mem0.search_signals import align_spacy_with_signals


def open_qdrant_mem0(path: Path, encoder: Any, collection: str = "mem0") -> Any:
    """Mem0's `Memory` on a local Qdrant under `path` (created if missing), embedding with `encoder`."""
    align_spacy_with_signals()
    config = MemoryConfig.model_construct(
        llm=LlmConfig.model_construct(provider=LLM_PROVIDER, config={"client": None, "model": None}),
        embedder=EmbedderConfig.model_construct(
            provider=EMBEDDER_PROVIDER, config={"model": encoder, "embedding_dims": encoder.dim}
        ),
        vector_store=VectorStoreConfig(
            provider="qdrant",
            config={"collection_name": collection, "path": str(path), "embedding_model_dims": encoder.dim},
        ),
        history_db_path=":memory:",
        reranker=None,
        version="v1.1",
        custom_instructions=None,
    )
    return Memory(config)
