"""Fast CPU encoder: the sentence-transformers pipeline (tokenise, BERT, mean pooling, L2) on onnxruntime."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graph.embeddings.batching import length_sorted_batches
from graph.embeddings.encoder import Vectors, check_vectors, empty_vectors, l2_normalise
from graph.embeddings.file_hash import file_sha256
from graph.embeddings.model_dir import read_model_dir
from graph.embeddings.onnx_export import OUTPUT_NAME, ensure_onnx_export
from graph.embeddings.pooling import mean_pool

# Measured on 2 CPU cores with ~1,000-character chunks: batches of ~1k padded tokens beat larger ones
# (activations stay in cache); 32 short queries per run amortise the per-call overhead.
DEFAULT_BATCH_SIZE = 32
DEFAULT_MAX_BATCH_TOKENS = 1024
# Promise to callers: every vector has at least this cosine to the sentence-transformers reference.
# Measured on 256 knowledge-base chunks and 100 queries: 1 - cosine <= 4.1e-13 in float64 arithmetic
# (<= 2.4e-7 when the dot product itself is taken in float32).
REFERENCE_MIN_COSINE = 0.99999


def _usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


class OnnxEncoder:
    """Encodes like sentence-transformers' Transformer -> mean Pooling -> Normalize, on onnxruntime fp32.

    Vectors have cosine >= REFERENCE_MIN_COSINE to the sentence-transformers reference (in practice equal
    to float32 rounding). Construction reads only json files. The first `encode` exports the model to ONNX
    if this machine has no export yet (needs torch once, ~10 s, cached in `export_dir`, default
    `cache_dir()/onnx/<weights hash>/`), then opens an onnxruntime session (~0.2 s).
    """

    def __init__(
        self,
        model_dir: Path,
        *,
        id_prefix: str = "minilm-onnx",
        export_dir: Path | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_batch_tokens: int | None = DEFAULT_MAX_BATCH_TOKENS,
        threads: int | None = None,
    ) -> None:
        self._info = read_model_dir(Path(model_dir))
        if not self._info.is_mean_pooled_and_normalised:
            raise ValueError(
                f"{self._info.path} is not Transformer -> mean Pooling -> Normalize "
                f"(modules {list(self._info.module_types)}, pooling {list(self._info.pooling_modes)}); "
                "use the sentence-transformers encoder for it"
            )
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self._id_prefix = id_prefix
        self._export_dir = export_dir
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.threads = threads or _usable_cores()
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: tuple[str, ...] = ()
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

    def load(self) -> None:
        """Export (if needed) and open the onnxruntime session now (otherwise the first `encode` does)."""
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime
            from tokenizers import Tokenizer

            onnx_path = ensure_onnx_export(self._info, self._export_dir)
            tokenizer = Tokenizer.from_file(str(self._info.path / "tokenizer.json"))
            # tokenizer.json ships with fixed 128-token padding/truncation; sentence-transformers instead
            # truncates at max_seq_length and pads per batch, which we do ourselves.
            tokenizer.enable_truncation(max_length=self._info.max_seq_length)
            tokenizer.no_padding()
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
            session = onnxruntime.InferenceSession(
                str(onnx_path), options, providers=["CPUExecutionProvider"]
            )
            self._input_names = tuple(i.name for i in session.get_inputs())
            self._tokenizer = tokenizer
            self._session = session

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Unit-length float32 vectors of shape (len(texts), dim), in input order.

        Texts are truncated to the model's max_seq_length tokens, like sentence-transformers does.
        """
        if not texts:
            return empty_vectors(self.dim)
        self.load()
        inputs = [t.lower() for t in texts] if self._info.do_lower_case else list(texts)
        encodings = self._tokenizer.encode_batch(inputs)
        lengths = [len(e.ids) for e in encodings]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for batch in length_sorted_batches(lengths, self.batch_size, self.max_batch_tokens):
            width = max(lengths[i] for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            types = np.zeros((len(batch), width), dtype=np.int64)
            for row, index in enumerate(batch):
                encoding = encodings[index]
                n = lengths[index]
                ids[row, :n] = encoding.ids
                mask[row, :n] = 1
                types[row, :n] = encoding.type_ids
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            (hidden,) = self._session.run([OUTPUT_NAME], {name: feeds[name] for name in self._input_names})
            out[batch] = mean_pool(hidden, mask)
        return check_vectors(l2_normalise(out), len(texts), self.dim, self.encoder_id)
