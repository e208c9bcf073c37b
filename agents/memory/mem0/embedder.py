"""Mem0's embedder as the project's encoder (the vectors the graph's memory index holds); no hub download."""

from __future__ import annotations

from typing import Any

from mem0.configs.embeddings.base import BaseEmbedderConfig
from mem0.embeddings.base import EmbeddingBase


class ProjectEmbedder(EmbeddingBase):
    """Mem0 hands the encoder in as the config's `model` (its config class keeps what it is given)."""

    def __init__(self, config: BaseEmbedderConfig | None = None) -> None:
        super().__init__(config)
        self.encoder: Any = self.config.model
        if self.encoder is None or not hasattr(self.encoder, "encode"):
            raise ValueError("the project embedder for Mem0 needs the project's encoder as its model")
        self.config.embedding_dims = int(self.encoder.dim)

    def embed(self, text: Any, memory_action: Any = None) -> list[float]:
        return [float(x) for x in self.encoder.encode([str(text)])[0]]

    def embed_batch(self, texts: Any, memory_action: Any = "add") -> list[list[float]]:
        if not texts:
            return []
        return [[float(x) for x in row] for row in self.encoder.encode([str(t) for t in texts])]
