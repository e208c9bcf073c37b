"""Opening Mem0's `Memory` on the project's LLM client, encoder and graph vector store.

The three are registered with Mem0's provider factories under `colabench_*` names. Mem0's config models only
accept their built-in provider names, so the config is assembled with `model_construct` (no validation) and
handed to `Memory(config)` unchanged: the rest is Mem0's own code (2.0.20's default extraction prompt and
search). Which search signals score is decided by `search_signals` (semantic only on the default install).
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from typing import Any

from mem0 import Memory
from mem0.configs.base import MemoryConfig
from mem0.embeddings.configs import EmbedderConfig
from mem0.llms.configs import LlmConfig
from mem0.utils.factory import EmbedderFactory, LlmFactory, VectorStoreFactory
from mem0.vector_stores.configs import VectorStoreConfig

from agents.memory.errors import MemoryBackendError
from agents.memory.mem0.history import PairHistory
from agents.memory.mem0.llm import ProjectLLMConfig
from agents.memory.mem0.search_signals import Mem0SearchSignals, align_spacy_with_signals, detect_search_signals
from agents.memory.mem0.system import SDK_VERSION
from agents.memory.mem0.vector_store import GraphStoreConfig, GraphVectorStore
from graph.store import EventStore

LLM_PROVIDER = "colabench_llm"
EMBEDDER_PROVIDER = "colabench_encoder"
STORE_PROVIDER = "colabench_graph"

LlmFactory.register_provider(LLM_PROVIDER, "agents.memory.mem0.llm.ProjectLLM", ProjectLLMConfig)
EmbedderFactory.provider_to_class[EMBEDDER_PROVIDER] = "agents.memory.mem0.embedder.ProjectEmbedder"
VectorStoreFactory.provider_to_class[STORE_PROVIDER] = "agents.memory.mem0.vector_store.GraphVectorStore"


@dataclass
class Mem0Handle:
    memory: Any  # mem0.Memory
    store: GraphVectorStore
    history: PairHistory
    signals: Mem0SearchSignals

    def close(self) -> None:
        self.memory.close()


def installed_version() -> str:
    return importlib.metadata.version("mem0ai")


def open_mem0(store: EventStore, llm: Any, system: str = "mem0") -> Mem0Handle:
    """Mem0's Memory over the graph (memories of `system`), its LLM `llm` (an LLMClient, or None to search only)."""
    version = installed_version()
    if version != SDK_VERSION:
        raise MemoryBackendError(f"memory system {system!r} is built with mem0ai {SDK_VERSION}; {version} is installed")
    if store.encoder is None:
        raise MemoryBackendError(f"memory system {system!r} needs the project's encoder (the store has none)")
    signals = detect_search_signals()
    align_spacy_with_signals()
    config = MemoryConfig.model_construct(
        llm=LlmConfig.model_construct(
            provider=LLM_PROVIDER, config={"client": llm, "model": getattr(llm, "model", None)}
        ),
        embedder=EmbedderConfig.model_construct(
            provider=EMBEDDER_PROVIDER, config={"model": store.encoder, "embedding_dims": store.encoder.dim}
        ),
        vector_store=VectorStoreConfig.model_construct(
            provider=STORE_PROVIDER, config=GraphStoreConfig(collection_name=system, system=system, store=store)
        ),
        history_db_path=":memory:",
        reranker=None,
        version="v1.1",
        custom_instructions=None,
    )
    memory = Memory(config)
    memory.db.close()
    history = PairHistory()
    memory.db = history
    vector_store = memory.vector_store
    if not isinstance(vector_store, GraphVectorStore):
        raise MemoryBackendError(f"Mem0 opened {type(vector_store).__name__}, not the graph vector store")
    return Mem0Handle(memory=memory, store=vector_store, history=history, signals=signals)
