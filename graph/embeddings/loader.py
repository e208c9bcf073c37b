"""Encoder names (`minilm`, `minilm-st`, `st:<dir>`, `openai:<model>:<dim>`) and the factory behind them."""

from __future__ import annotations

import os
from pathlib import Path

from graph.embeddings.cache import EmbeddingCache
from graph.embeddings.cached import CachedEncoder
from graph.embeddings.encoder import Encoder
from graph.embeddings.model_dir import bundled_minilm_dir
from graph.embeddings.onnx_encoder import OnnxEncoder
from graph.embeddings.openai_encoder import OpenAIEncoder
from graph.embeddings.sentence_transformer_encoder import SentenceTransformerEncoder
from graph.errors import UsageError

ENCODER_ENV = "COLABENCH_ENCODER"
BASE_URL_ENV = "COLABENCH_EMBEDDINGS_BASE_URL"
API_KEY_ENV = "COLABENCH_EMBEDDINGS_API_KEY"
CONCURRENCY_ENV = "COLABENCH_EMBEDDINGS_CONCURRENCY"  # requests in flight per encode call (default 4)
DEFAULT_ENCODER = "minilm"
CHOICES = {
    "minilm": "all-MiniLM-L6-v2 on onnxruntime fp32 (default; within 1e-6 cosine of minilm-st, faster)",
    "minilm-st": "all-MiniLM-L6-v2 on sentence-transformers/torch (the reference)",
    "st:<model dir>": "any local sentence-transformers model directory, on sentence-transformers",
    "openai:<model>:<dim>": f"an OpenAI-compatible endpoint at ${BASE_URL_ENV} (key in ${API_KEY_ENV})",
}


def _choices_text() -> str:
    return "; ".join(f"{name} = {meaning}" for name, meaning in CHOICES.items())


def make_encoder(name: str | None = None) -> Encoder:
    """The uncached encoder called `name` (default: $COLABENCH_ENCODER, else `minilm`).

    Nothing heavy is loaded: models load on the first encode. Raises ValueError for an unknown or
    malformed name (the message lists the choices) and for `openai:` without a base URL.
    """
    name = (name or os.environ.get(ENCODER_ENV) or DEFAULT_ENCODER).strip()
    if name == "minilm":
        return OnnxEncoder(bundled_minilm_dir(), id_prefix="minilm-onnx")
    if name == "minilm-st":
        return SentenceTransformerEncoder(bundled_minilm_dir(), id_prefix="minilm-st")
    if name.startswith("st:") and len(name) > 3:
        return SentenceTransformerEncoder(Path(name[3:]).expanduser())
    if name.startswith("openai:"):
        model, _, dim_text = name[len("openai:") :].rpartition(":")
        if not model or not dim_text.isdigit() or int(dim_text) < 1:
            raise UsageError(
                f"encoder {name!r} must look like openai:<model>:<dim>, "
                "e.g. openai:text-embedding-3-small:1536"
            )
        base_url = os.environ.get(BASE_URL_ENV, "").strip()
        if not base_url:
            raise UsageError(
                f"encoder {name!r} needs the endpoint's base URL in ${BASE_URL_ENV} "
                "(e.g. https://api.openai.com/v1 or http://localhost:8000/v1)"
            )
        concurrency = os.environ.get(CONCURRENCY_ENV, "").strip() or "4"
        if not concurrency.isdigit() or int(concurrency) < 1:
            raise UsageError(f"${CONCURRENCY_ENV} must be a whole number >= 1, got {concurrency!r}")
        return OpenAIEncoder(
            base_url=base_url, model=model, dim=int(dim_text), api_key=os.environ.get(API_KEY_ENV) or None,
            concurrency=int(concurrency),
        )
    raise UsageError(f"unknown encoder {name!r}; choose one of: {_choices_text()}")


def load_encoder(name: str | None = None, *, cache: EmbeddingCache | None = None) -> CachedEncoder:
    """The encoder called `name` (see `make_encoder`) behind the persistent embedding cache
    (default file: `cache_dir()/embeddings.sqlite`). Cheap: no model is loaded until a cache miss."""
    return CachedEncoder(make_encoder(name), cache if cache is not None else EmbeddingCache())
