"""Reference encoder: a local sentence-transformers model run by sentence-transformers on the CPU."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graph.embeddings.encoder import Vectors, check_vectors, empty_vectors, l2_normalise
from graph.embeddings.file_hash import file_sha256
from graph.embeddings.model_dir import force_offline_hub, read_model_dir


class SentenceTransformerEncoder:
    """Encodes with `sentence_transformers.SentenceTransformer` loaded from a local directory, on CPU.

    Construction reads only json files; torch and the model load on the first non-empty `encode`.
    Texts longer than the model's max_seq_length (256 tokens for all-MiniLM-L6-v2) are truncated.
    """

    def __init__(self, model_dir: Path, *, id_prefix: str | None = None, batch_size: int = 64) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self._info = read_model_dir(Path(model_dir))
        self._id_prefix = id_prefix or f"st-{self._info.path.name}"
        self.batch_size = batch_size
        self._model: Any = None
        self._encoder_id: str | None = None
        self._lock = threading.Lock()

    @property
    def encoder_id(self) -> str:
        """`<prefix>:<first 12 hex of the weight file's sha256>` (hashed once per instance)."""
        if self._encoder_id is None:
            self._encoder_id = f"{self._id_prefix}:{file_sha256(self._info.weights_file)[:12]}"
        return self._encoder_id

    @property
    def dim(self) -> int:
        return self._info.dim

    @property
    def model_dir(self) -> Path:
        return self._info.path

    def load(self) -> None:
        """Load torch and the model now (otherwise the first `encode` does)."""
        with self._lock:
            if self._model is not None:
                return
            force_offline_hub()
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(str(self._info.path), device="cpu")
            model.eval()
            model_dim = model.get_embedding_dimension()
            if model_dim is not None and model_dim != self._info.dim:
                raise ValueError(
                    f"{self._info.path}: config says dim {self._info.dim}, model gives {model_dim}"
                )
            self._model = model

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Unit-length float32 vectors of shape (len(texts), dim), in input order."""
        if not texts:
            return empty_vectors(self.dim)
        self.load()
        raw = self._model.encode(
            list(texts), batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return check_vectors(l2_normalise(raw), len(texts), self.dim, self.encoder_id)
