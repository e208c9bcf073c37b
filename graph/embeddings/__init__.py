"""Text embeddings for the evidence graph: encoders, a persistent SQLite cache, and `load_encoder(name)`.

Importing this package is cheap (numpy and sqlite only); torch, sentence-transformers or onnxruntime are
imported on the first text that actually has to be embedded.
"""

from graph.embeddings.cache import EmbeddingCache, default_cache_path, text_key
from graph.embeddings.cached import CachedEncoder, EncodeStats
from graph.embeddings.encoder import Encoder, Vectors, l2_normalise
from graph.embeddings.loader import CHOICES, DEFAULT_ENCODER, load_encoder, make_encoder
from graph.embeddings.onnx_encoder import OnnxEncoder
from graph.embeddings.openai_encoder import OpenAIEncoder
from graph.embeddings.sentence_transformer_encoder import SentenceTransformerEncoder

__all__ = [
    "CHOICES",
    "DEFAULT_ENCODER",
    "CachedEncoder",
    "EmbeddingCache",
    "EncodeStats",
    "Encoder",
    "OnnxEncoder",
    "OpenAIEncoder",
    "SentenceTransformerEncoder",
    "Vectors",
    "default_cache_path",
    "l2_normalise",
    "load_encoder",
    "make_encoder",
    "text_key",
]
