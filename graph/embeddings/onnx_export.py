"""One-time, deterministic export of a BERT-style sentence-transformers model to ONNX, cached per machine."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from graph.embeddings.encoder import l2_normalise
from graph.embeddings.file_hash import file_sha256, sha256_of_file
from graph.embeddings.model_dir import ModelDir, force_offline_hub
from graph.embeddings.pooling import mean_pool
from graph.paths import cache_dir

# Bump when the export below changes, so cached exports from an older recipe are redone.
EXPORT_RECIPE = "torchscript-eager-attention-opset17-v1"
ONNX_FILE = "model.onnx"
META_FILE = "export.json"
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "last_hidden_state"
# An export whose pooled vectors drift further than this from torch's is refused (fp32 noise is ~1e-7).
EXPORT_MIN_COSINE = 0.99999
_PROBE_TEXTS = (
    "Iron deficiency anaemia is treated with oral iron supplements.",
    "What are the symptoms of type 2 diabetes?",
    "The heart pumps blood through the pulmonary and systemic circuits; valves keep the flow one way.",
)


def default_export_dir(model: ModelDir) -> Path:
    """`cache_dir()/onnx/<first 12 hex of the weights' sha256>`: one export per set of weights per machine."""
    return cache_dir() / "onnx" / file_sha256(model.weights_file)[:12]


def _export_is_complete(export_dir: Path) -> bool:
    try:
        meta = json.loads((export_dir / META_FILE).read_text(encoding="utf-8"))
        size = (export_dir / ONNX_FILE).stat().st_size
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get("recipe") == EXPORT_RECIPE and meta.get("onnx_bytes") == size


@contextlib.contextmanager
def _export_lock(export_dir: Path) -> Iterator[None]:
    # Another process exporting the same model makes us wait for its result instead of redoing it.
    export_dir.mkdir(parents=True, exist_ok=True)
    with (export_dir / ".lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_onnx_export(model: ModelDir, export_dir: Path | None = None) -> Path:
    """Path of the ONNX graph of `model` (inputs input_ids/attention_mask/token_type_ids, output
    last_hidden_state), exporting it with torch into `export_dir` first if no complete export is there.

    The export is byte-for-byte deterministic for given weights and torch version, is checked against the
    torch model before it is published, and is written atomically (safe with concurrent processes).
    """
    export_dir = Path(export_dir) if export_dir is not None else default_export_dir(model)
    if _export_is_complete(export_dir):
        return export_dir / ONNX_FILE
    with _export_lock(export_dir):
        if not _export_is_complete(export_dir):
            _export(model, export_dir)
    return export_dir / ONNX_FILE


@contextlib.contextmanager
def _without_onnx_package() -> Iterator[None]:
    """Let torch's TorchScript exporter run when the `onnx` package is not installed.

    The exporter imports `onnx` only to attach custom onnxscript functions to the graph; a BERT graph
    has none, so that step returns the bytes unchanged and can be skipped. The export is verified after.
    """
    try:
        import onnx  # noqa: F401
    except ImportError:
        pass
    else:
        yield
        return
    try:
        from torch.onnx._internal.torchscript_exporter import onnx_proto_utils
    except ImportError:
        # Another torch layout: let torch raise its own "install onnx" error.
        yield
        return
    original = onnx_proto_utils._add_onnxscript_fn

    def keep_model_bytes(model_bytes: bytes, custom_opsets: Any) -> bytes:
        return model_bytes

    onnx_proto_utils._add_onnxscript_fn = keep_model_bytes
    try:
        yield
    finally:
        onnx_proto_utils._add_onnxscript_fn = original


def _probe_batch(model: ModelDir) -> dict[str, np.ndarray]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model.path / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=model.max_seq_length)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]") or 0)
    encodings = tokenizer.encode_batch(list(_PROBE_TEXTS))
    return {
        "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
    }


def _export(model: ModelDir, export_dir: Path) -> None:
    force_offline_hub()
    import onnxruntime
    import torch
    from transformers import AutoModel

    started = time.perf_counter()
    # Eager attention exports to plain MatMul/Softmax, which onnxruntime fuses and runs faster than SDPA.
    bert = AutoModel.from_pretrained(str(model.path), attn_implementation="eager").eval()

    class LastHiddenState(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
        ) -> torch.Tensor:
            out = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            hidden: torch.Tensor = out.last_hidden_state
            return hidden

    probe = _probe_batch(model)
    example = tuple(torch.from_numpy(probe[name]) for name in INPUT_NAMES)
    dynamic = {name: {0: "batch", 1: "tokens"} for name in (*INPUT_NAMES, OUTPUT_NAME)}
    fd, tmp_name = tempfile.mkstemp(dir=export_dir, prefix=ONNX_FILE, suffix=".tmp")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        with torch.no_grad(), warnings.catch_warnings(), _without_onnx_package():
            expected = bert(**{k: torch.from_numpy(v) for k, v in probe.items()}).last_hidden_state.numpy()
            # Tracer and legacy-exporter warnings are expected here and say nothing about correctness.
            warnings.simplefilter("ignore")
            # eval() on the wrapper too: the exporter restores the wrapper's mode onto the model afterwards.
            torch.onnx.export(
                LastHiddenState(bert).eval(),
                example,
                str(tmp),
                dynamo=False,
                input_names=list(INPUT_NAMES),
                output_names=[OUTPUT_NAME],
                dynamic_axes=dynamic,
                opset_version=17,
                do_constant_folding=True,
            )
        session = onnxruntime.InferenceSession(str(tmp), providers=["CPUExecutionProvider"])
        (got,) = session.run([OUTPUT_NAME], probe)
        mask = probe["attention_mask"]
        cosine = (l2_normalise(mean_pool(got, mask)) * l2_normalise(mean_pool(expected, mask))).sum(1)
        if float(cosine.min()) < EXPORT_MIN_COSINE:
            raise RuntimeError(
                f"ONNX export of {model.path} disagrees with torch "
                f"(min cosine {cosine.min():.6f}); not cached"
            )
        os.replace(tmp, export_dir / ONNX_FILE)
    finally:
        tmp.unlink(missing_ok=True)
    meta = {
        "recipe": EXPORT_RECIPE,
        "model_dir": str(model.path),
        "weights_sha256": file_sha256(model.weights_file),
        "onnx_bytes": (export_dir / ONNX_FILE).stat().st_size,
        "onnx_sha256": sha256_of_file(export_dir / ONNX_FILE),
        "torch": torch.__version__,
        "probe_min_cosine": float(cosine.min()),
        "export_seconds": round(time.perf_counter() - started, 2),
    }
    # The meta file is the completion marker, so it is written last and atomically.
    meta_tmp = export_dir / f"{META_FILE}.tmp"
    meta_tmp.write_text(json.dumps(meta, indent=1), encoding="utf-8")
    os.replace(meta_tmp, export_dir / META_FILE)
