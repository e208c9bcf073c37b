"""A-MEM's in-process state, built from the evidence graph.

A-MEM keeps its notes in a ChromaDB collection (plus an LRU cache of MemoryNote objects). Here that collection
is an in-memory Chroma collection whose embedding function is the project's encoder (A-MEM would otherwise
load a sentence-transformers model by name), and it is filled from the profile's `Memory {system: 'amem'}`
nodes before the first pair is added: the graph is the source of truth, the Chroma collection a cache of it.

A-MEM's constructor builds its retriever and controller itself (`ChromaRetriever(...)`, `LLMController(...)`
looked up in `agentic_memory.memory_system`); `open_amem` hands it ours for the duration of the call.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import numpy as np

from graph.projection import VectorEncoder

for _name, _value in (("ANONYMIZED_TELEMETRY", "False"), ("LITELLM_LOCAL_MODEL_COST_MAP", "True")):
    os.environ.setdefault(_name, _value)

import chromadb  # noqa: E402 (telemetry settings must precede the SDK imports)
from agentic_memory import memory_system as amem_module  # noqa: E402
from agentic_memory.retrievers import ChromaRetriever  # noqa: E402
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings  # noqa: E402
from chromadb.config import Settings  # noqa: E402

# encoder id -> encoder, for Chroma's build_from_config (Chroma rebuilds functions from their config)
_ENCODERS: dict[str, VectorEncoder] = {}
_CONSTRUCT_LOCK = threading.Lock()


class EncoderEmbedding(EmbeddingFunction[Documents]):
    """Chroma embedding function over the project's encoder; `known` texts take their vector from the graph."""

    def __init__(self, encoder: VectorEncoder) -> None:
        self.encoder = encoder
        self.known: dict[str, np.ndarray] = {}
        _ENCODERS[encoder.encoder_id] = encoder

    def __call__(self, input: Documents) -> Embeddings:
        texts = list(input)
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            for text, vector in zip(missing, self.encoder.encode(missing), strict=True):
                self.known[text] = np.asarray(vector, dtype=np.float32)
        return [self.known[t] for t in texts]

    @staticmethod
    def name() -> str:
        return "colabench_encoder"

    def default_space(self) -> Any:
        return "cosine"

    def get_config(self) -> dict[str, Any]:
        return {"encoder_id": self.encoder.encoder_id}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> EncoderEmbedding:
        return EncoderEmbedding(_ENCODERS[config["encoder_id"]])


class GraphBackedRetriever(ChromaRetriever):
    """A-MEM's ChromaRetriever on an in-memory collection embedded by the project's encoder. It records which
    notes A-MEM adds or rewrites (`touched`), so a pair's writes are exactly the notes it changed."""

    def __init__(self, embedding: EncoderEmbedding) -> None:
        # deliberately not ChromaRetriever.__init__: it opens a persistent client and loads a model by name
        self.persist_directory = None
        self.embedding_function = embedding
        self.client = chromadb.EphemeralClient(Settings(anonymized_telemetry=False, allow_reset=False))
        self.collection_name = f"amem-{uuid.uuid4().hex}"
        self.collection = self.client.get_or_create_collection(
            name=self.collection_name, embedding_function=embedding  # type: ignore[arg-type]
        )
        self.touched: list[str] = []

    def add_document(self, document: str, metadata: dict[str, Any], doc_id: str) -> None:
        super().add_document(document, metadata, doc_id)
        self.touched.append(doc_id)

    def update_document(self, doc_id: str, metadata: dict[str, Any], content: str | None = None) -> None:
        super().update_document(doc_id, metadata, content)
        self.touched.append(doc_id)

    def document_text(self, doc_id: str) -> str | None:
        """The text A-MEM embeds for a note (content plus context, keywords and tags, as it serialises them)."""
        got = self.collection.get(ids=[doc_id], include=["documents"])
        documents = got.get("documents") or []
        return str(documents[0]) if documents else None

    def drop(self) -> None:
        # releasing an in-memory collection must not mask the real outcome
        with suppress(Exception):
            self.client.delete_collection(self.collection_name)


class _ControllerHolder:
    """What A-MEM's AgenticMemorySystem expects in `llm_controller`: an object whose `.llm` answers."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    def get_completion(
        self, prompt: str, response_format: dict[str, Any] | None = None, temperature: float = 1.0
    ) -> str:
        return str(self.llm.get_completion(prompt, response_format, temperature))


@contextmanager
def _sdk_parts(retriever: GraphBackedRetriever, controller: Any) -> Iterator[None]:
    saved = (amem_module.ChromaRetriever, amem_module.LLMController)
    amem_module.ChromaRetriever = lambda **_: retriever
    amem_module.LLMController = lambda *_a, **_k: _ControllerHolder(controller)
    try:
        yield
    finally:
        amem_module.ChromaRetriever, amem_module.LLMController = saved


def open_amem(encoder: VectorEncoder, controller: Any, model: str) -> tuple[Any, GraphBackedRetriever]:
    """A-MEM's AgenticMemorySystem with our retriever and controller (no model download, no API key)."""
    embedding = EncoderEmbedding(encoder)
    retriever = GraphBackedRetriever(embedding)
    with _CONSTRUCT_LOCK, _sdk_parts(retriever, controller):
        system = amem_module.AgenticMemorySystem(
            model_name=encoder.encoder_id,
            llm_backend="openai",
            llm_model=model,
            storage_path="(in memory)",
            cache_size=1_000_000,
        )
    return system, retriever


def new_note(**fields: Any) -> Any:
    """An A-MEM MemoryNote (for restoring notes from the graph)."""
    return amem_module.MemoryNote(**fields)


def restore_note(
    system: Any, retriever: GraphBackedRetriever, note: Any, text: str, vector: Sequence[float] | None
) -> None:
    """Put one note back into A-MEM's collection and cache as it was (its graph vector is reused)."""
    if vector is not None:
        retriever.embedding_function.known[text] = np.asarray(vector, dtype=np.float32)
    metadata = system._memory_note_to_metadata(note)
    retriever.add_document(note.content, metadata, note.id)
    system.cache.put(note.id, note)
