"""Encoders: identities known without loading, ONNX runtime vs the sentence-transformers reference, names."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import pytest

from graph.embeddings import (
    CHOICES,
    OnnxEncoder,
    SentenceTransformerEncoder,
    load_encoder,
    make_encoder,
)
from graph.embeddings.batching import length_sorted_batches
from graph.embeddings.file_hash import file_sha256
from graph.embeddings.model_dir import bundled_minilm_dir, read_model_dir
from graph.embeddings.onnx_encoder import REFERENCE_MIN_COSINE
from graph.embeddings.onnx_export import ONNX_FILE, ensure_onnx_export
from tests.paths import REPO

KB_DOCUMENTS = REPO.parent / "shared" / "data" / "kb" / "documents.jsonl.gz"
MODEL_DIR = bundled_minilm_dir()
WEIGHTS_HASH = hashlib.sha256((MODEL_DIR / "model.safetensors").read_bytes()).hexdigest()
HEAVY_MODULES = ("torch", "transformers", "sentence_transformers", "onnxruntime")

EDGE_TEXTS = [
    "",
    "   ",
    "  leading and trailing whitespace \n",
    "Ünïcödé café naïve — 中文 😀 ∑ x²",
    "What are the symptoms of iron deficiency?",
    "fever " * 400,
]


@pytest.fixture(scope="module", autouse=True)
def machine_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Point the machine cache dir (hash index, embedding cache, ONNX exports) at a temp dir."""
    home = tmp_path_factory.mktemp("colabench-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLABENCH_HOME", str(home))
        yield home


@pytest.fixture(scope="module")
def kb_texts() -> list[str]:
    """~1000-character pieces of real knowledge-base documents (built-in sentences if the KB is absent)."""
    if not KB_DOCUMENTS.is_file():
        return [f"Sentence number {i} about blood pressure, diet and exercise." * 12 for i in range(20)]
    pieces: list[str] = []
    with gzip.open(KB_DOCUMENTS, "rt", encoding="utf-8") as handle:
        for line_no, line in enumerate(handle):
            if line_no % 150:
                continue
            text = json.loads(line)["text"]
            pieces.extend(text[i : i + 1000] for i in range(0, min(len(text), 2000), 1000))
            if len(pieces) >= 48:
                break
    return pieces


@pytest.fixture(scope="module")
def reference() -> SentenceTransformerEncoder:
    encoder = SentenceTransformerEncoder(MODEL_DIR, id_prefix="minilm-st")
    encoder.load()
    return encoder


@pytest.fixture(scope="module")
def onnx_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-export")


@pytest.fixture(scope="module")
def onnx(onnx_dir: Path, reference: SentenceTransformerEncoder) -> OnnxEncoder:
    # Depends on `reference` so torch is imported once, by whichever runs first.
    encoder = OnnxEncoder(MODEL_DIR, export_dir=onnx_dir)
    encoder.load()
    return encoder


def _run_python(code: str, env: dict[str, str] | None = None) -> str:
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=full_env, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_encoder_id_is_known_without_loading_the_model() -> None:
    code = f"""
import json, sys
from graph.embeddings import load_encoder
found = {{}}
for name in ("minilm", "minilm-st"):
    encoder = load_encoder(name)
    found[name] = [encoder.encoder_id, encoder.dim, encoder.encode([]).shape]
found["heavy"] = [m for m in {HEAVY_MODULES!r} if m in sys.modules]
print(json.dumps(found))
"""
    found = json.loads(_run_python(code))
    assert found["minilm"] == [f"minilm-onnx:{WEIGHTS_HASH[:12]}", 384, [0, 384]]
    assert found["minilm-st"] == [f"minilm-st:{WEIGHTS_HASH[:12]}", 384, [0, 384]]
    assert found["heavy"] == []


def test_weight_hash_is_remembered_until_the_file_changes(tmp_path: Path) -> None:
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"first weights")
    index = tmp_path / "hashes.json"
    assert file_sha256(weights, index) == hashlib.sha256(b"first weights").hexdigest()

    # A forged entry is returned as is: proof the file was not read again.
    entries = json.loads(index.read_text())
    entries[str(weights.resolve())]["sha256"] = "f" * 64
    index.write_text(json.dumps(entries))
    assert file_sha256(weights, index) == "f" * 64

    weights.write_bytes(b"second weights, longer")
    assert file_sha256(weights, index) == hashlib.sha256(b"second weights, longer").hexdigest()


def test_default_and_reference_minilm_have_different_ids_for_the_same_weights() -> None:
    default, reference = make_encoder("minilm"), make_encoder("minilm-st")
    assert default.encoder_id != reference.encoder_id
    assert default.encoder_id.endswith(WEIGHTS_HASH[:12]) and reference.encoder_id.endswith(WEIGHTS_HASH[:12])


def test_onnx_vectors_match_sentence_transformers_within_tolerance(
    kb_texts: list[str], reference: SentenceTransformerEncoder, onnx: OnnxEncoder
) -> None:
    texts = kb_texts + EDGE_TEXTS
    expected = reference.encode(texts)
    got = onnx.encode(texts)
    cosine = (expected * got).sum(axis=1)
    assert cosine.min() >= REFERENCE_MIN_COSINE, f"worst text: {texts[int(cosine.argmin())][:80]!r}"
    assert float(np.mean(1 - cosine)) < 1e-6


def test_onnx_vector_of_a_text_does_not_depend_on_its_batch_neighbours(onnx: OnnxEncoder) -> None:
    alone = onnx.encode(["Anaemia makes people tired."])[0]
    neighbours = [
        "short",
        "A much longer neighbour sentence that forces padding. " * 20,
        "mid length text here",
    ]
    in_batch = onnx.encode([neighbours[0], "Anaemia makes people tired.", *neighbours[1:]])[1]
    np.testing.assert_allclose(in_batch, alone, atol=1e-5)


def test_texts_beyond_256_tokens_are_truncated_like_sentence_transformers(
    reference: SentenceTransformerEncoder, onnx: OnnxEncoder
) -> None:
    long_text = "The kidneys filter blood and make urine. " * 60
    with_tail = long_text + "This tail lies beyond the 256th token and must not count."
    vectors = onnx.encode([long_text, with_tail])
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-6)
    assert float(reference.encode([with_tail])[0] @ vectors[1]) >= REFERENCE_MIN_COSINE


def test_encoders_return_unit_float32_rows_in_input_order(onnx: OnnxEncoder) -> None:
    texts = ["first text", "a second, somewhat longer text", "third"]
    forward = onnx.encode(texts)
    backward = onnx.encode(texts[::-1])
    assert forward.dtype == np.float32 and forward.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(forward, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(forward, backward[::-1], atol=1e-6)
    assert float(forward[0] @ forward[1]) < 0.99


def test_onnx_export_is_deterministic_and_reused(
    onnx: OnnxEncoder, onnx_dir: Path, tmp_path: Path, reference: SentenceTransformerEncoder
) -> None:
    first = onnx_dir / ONNX_FILE
    stamp = first.stat().st_mtime_ns
    info = read_model_dir(MODEL_DIR)
    assert ensure_onnx_export(info, onnx_dir) == first
    assert first.stat().st_mtime_ns == stamp, "a complete export must not be redone"

    second = ensure_onnx_export(info, tmp_path / "again")
    assert hashlib.sha256(second.read_bytes()).digest() == hashlib.sha256(first.read_bytes()).digest()
    meta = json.loads((onnx_dir / "export.json").read_text())
    assert meta["weights_sha256"] == WEIGHTS_HASH and meta["probe_min_cosine"] >= 0.99999


def test_onnx_export_goes_to_the_machine_cache_dir_by_default(machine_cache: Path) -> None:
    encoder = OnnxEncoder(MODEL_DIR)
    from graph.embeddings.onnx_export import default_export_dir

    assert default_export_dir(read_model_dir(MODEL_DIR)) == machine_cache / "onnx" / WEIGHTS_HASH[:12]
    assert encoder.encoder_id == f"minilm-onnx:{WEIGHTS_HASH[:12]}"


def test_unknown_encoder_name_lists_choices() -> None:
    with pytest.raises(ValueError, match="unknown encoder 'bert-huge'") as error:
        load_encoder("bert-huge")
    for choice in CHOICES:
        assert choice in str(error.value)


def test_encoder_name_defaults_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLABENCH_ENCODER", "minilm-st")
    assert load_encoder().encoder_id.startswith("minilm-st:")
    monkeypatch.delenv("COLABENCH_ENCODER")
    assert load_encoder().encoder_id.startswith("minilm-onnx:")


def test_st_name_accepts_any_local_model_dir() -> None:
    encoder = load_encoder(f"st:{MODEL_DIR}")
    assert encoder.encoder_id == f"st-model:{WEIGHTS_HASH[:12]}"
    assert encoder.dim == 384
    with pytest.raises(ValueError, match="does not exist"):
        load_encoder("st:/no/such/model")


def test_openai_name_needs_a_base_url_and_a_dim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLABENCH_EMBEDDINGS_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="COLABENCH_EMBEDDINGS_BASE_URL"):
        load_encoder("openai:text-embedding-3-small:1536")
    monkeypatch.setenv("COLABENCH_EMBEDDINGS_BASE_URL", "http://localhost:8000/v1")
    with pytest.raises(ValueError, match="openai:<model>:<dim>"):
        load_encoder("openai:text-embedding-3-small")
    encoder = load_encoder("openai:nomic-embed-text:latest:768")
    assert (encoder.encoder_id, encoder.dim) == ("openai:nomic-embed-text:latest@localhost:8000", 768)


def _write_model_dir(path: Path, modules: list[dict[str, str]], pooling: Mapping[str, object]) -> Path:
    path.mkdir()
    (path / "model.safetensors").write_bytes(b"weights")
    (path / "config.json").write_text(json.dumps({"hidden_size": 384, "max_position_embeddings": 512}))
    (path / "modules.json").write_text(json.dumps(modules))
    (path / "1_Pooling").mkdir()
    (path / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    return path


def test_model_dim_is_read_from_pooling_and_dense_configs(tmp_path: Path) -> None:
    modules = [
        {"path": "", "type": "sentence_transformers.models.Transformer"},
        {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"path": "2_Dense", "type": "sentence_transformers.models.Dense"},
    ]
    two_modes = {
        "word_embedding_dimension": 384,
        "pooling_mode_cls_token": True,
        "pooling_mode_mean_tokens": True,
    }
    model = _write_model_dir(tmp_path / "dense", modules, two_modes)
    assert read_model_dir(model).dim == 768
    (model / "2_Dense").mkdir()
    (model / "2_Dense" / "config.json").write_text(json.dumps({"in_features": 768, "out_features": 256}))
    read_model_dir.cache_clear()
    assert read_model_dir(model).dim == 256
    assert read_model_dir(model).max_seq_length == 512


def test_onnx_refuses_models_it_cannot_reproduce(tmp_path: Path) -> None:
    modules = [
        {"path": "", "type": "sentence_transformers.models.Transformer"},
        {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    model = _write_model_dir(tmp_path / "cls", modules, {"embedding_dimension": 384, "pooling_mode": "cls"})
    with pytest.raises(ValueError, match="mean Pooling -> Normalize"):
        OnnxEncoder(model)


def test_batches_are_length_sorted_and_bounded_in_padded_tokens() -> None:
    lengths = [250, 12, 240, 15, 256, 9, 200, 14]
    batches = length_sorted_batches(lengths, max_texts=3, max_tokens=512)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= 512
    flat = [lengths[i] for batch in batches for i in batch]
    assert flat == sorted(lengths)
    assert length_sorted_batches([600], max_texts=4, max_tokens=512) == [[0]]
