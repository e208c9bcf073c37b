"""Benchmark the embedding runtimes on this machine and print their figures.

For each variant, in a fresh process: load time (imports + model + first vector), texts/s on ~1,000-character
knowledge-base chunks per batch size, single-query latency p50/p95 on ~10-word questions, peak RSS; then the
fidelity of each variant to the sentence-transformers reference (min / mean cosine over the same texts).

    python bench/bench_encoder.py [--texts 256] [--queries 100] [--batch-sizes 8,32,64,128] [--reps 2]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
KB = REPO.parent / "shared" / "data" / "kb"
REFERENCE = "minilm-st"
VARIANTS = {
    REFERENCE: "sentence-transformers, torch fp32 (reference)",
    "minilm": "onnxruntime fp32, length-sorted batches of <=1024 padded tokens (default)",
    "minilm-onnx-fixed": "onnxruntime fp32, length-sorted fixed-size batches",
    "st-int8-dynamic": "sentence-transformers + torch dynamic int8 Linear layers (not offered)",
}


def load_chunks(count: int, size: int = 1000) -> list[str]:
    """`count` pieces of ~`size` characters, from documents spread evenly over the knowledge base."""
    with gzip.open(KB / "documents.jsonl.gz", "rt", encoding="utf-8") as handle:
        documents = [json.loads(line)["text"] for line in handle]
    step = max(1, len(documents) // count)
    chunks = []
    for text in documents[::step]:
        piece = text[:size]
        if len(piece) >= size // 2:
            chunks.append(piece)
        if len(chunks) == count:
            break
    return chunks


def load_queries(count: int) -> list[str]:
    """`count` questions of 8 to 12 words from the knowledge base's QA pairs."""
    queries = []
    with gzip.open(KB / "qa.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            question = json.loads(line)["question"]
            if 8 <= len(question.split()) <= 12 and question not in queries:
                queries.append(question)
            if len(queries) == count:
                break
    return queries


def _make(variant: str, batch_size: int) -> Any:
    from graph.embeddings.model_dir import bundled_minilm_dir
    from graph.embeddings.onnx_encoder import OnnxEncoder
    from graph.embeddings.sentence_transformer_encoder import SentenceTransformerEncoder

    model = bundled_minilm_dir()
    if variant == REFERENCE:
        return SentenceTransformerEncoder(model, id_prefix=REFERENCE, batch_size=batch_size)
    if variant == "minilm":
        return OnnxEncoder(model, batch_size=batch_size)
    if variant == "minilm-onnx-fixed":
        return OnnxEncoder(model, batch_size=batch_size, max_batch_tokens=None)
    if variant == "st-int8-dynamic":
        import warnings

        import torch

        encoder = SentenceTransformerEncoder(model, id_prefix="st-int8", batch_size=batch_size)
        encoder.load()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            encoder._model = torch.ao.quantization.quantize_dynamic(
                encoder._model, {torch.nn.Linear}, dtype=torch.qint8
            )
        return encoder
    raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")


def run_worker(variant: str, args: argparse.Namespace) -> None:
    """Measure one variant in this (fresh) process and write its figures and vectors to args.out."""
    import numpy as np

    started = time.perf_counter()
    sys.path.insert(0, str(REPO))
    batch_sizes = [int(b) for b in args.batch_sizes.split(",")]
    encoder = _make(variant, batch_sizes[0])
    encoder.encode(["warm-up text"])
    load_s = time.perf_counter() - started

    chunks, queries = load_chunks(args.texts), load_queries(args.queries)
    encoder.encode(chunks[:16])
    throughput = {}
    for batch_size in batch_sizes:
        encoder.batch_size = batch_size
        best = 0.0
        for _ in range(args.reps):
            begun = time.perf_counter()
            vectors = encoder.encode(chunks)
            best = max(best, len(chunks) / (time.perf_counter() - begun))
        throughput[batch_size] = round(best, 1)
    latencies = []
    for query in queries:
        begun = time.perf_counter()
        encoder.encode([query])
        latencies.append((time.perf_counter() - begun) * 1000)
    out = Path(args.out)
    np.save(out / f"{variant}.chunks.npy", vectors)
    np.save(out / f"{variant}.queries.npy", encoder.encode(queries))
    figures: dict[str, Any] = {
        "encoder_id": encoder.encoder_id,
        "load_s": round(load_s, 2),
        "texts_per_s": throughput,
        "query_ms_p50": round(float(np.percentile(latencies, 50)), 2),
        "query_ms_p95": round(float(np.percentile(latencies, 95)), 2),
    }
    if variant == "minilm":
        figures.update(_cache_figures(encoder, chunks))
    figures["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    (out / f"{variant}.json").write_text(json.dumps(figures))


def _cache_figures(encoder: Any, chunks: list[str]) -> dict[str, Any]:
    from graph.embeddings import CachedEncoder, EmbeddingCache

    with tempfile.TemporaryDirectory() as tmp:
        cached = CachedEncoder(encoder, EmbeddingCache(Path(tmp) / "bench.sqlite"))
        cached.encode(chunks)
        begun = time.perf_counter()
        cached.encode(chunks)
        hits_per_s = len(chunks) / (time.perf_counter() - begun)
        assert cached.stats.hits == len(set(chunks))
    return {"cache_hit_texts_per_s": round(hits_per_s)}


def run_export_worker(args: argparse.Namespace) -> None:
    """Time a first-use ONNX export into an empty directory, then ensure the machine-cache export exists."""
    started = time.perf_counter()
    sys.path.insert(0, str(REPO))
    from graph.embeddings.model_dir import bundled_minilm_dir, read_model_dir
    from graph.embeddings.onnx_export import ensure_onnx_export

    model = read_model_dir(bundled_minilm_dir())
    with tempfile.TemporaryDirectory() as tmp:
        ensure_onnx_export(model, Path(tmp))
    figures = {"export_s_incl_torch_import": round(time.perf_counter() - started, 1)}
    # Make sure the machine-cache export exists, so the variants' load times exclude exporting.
    ensure_onnx_export(model)
    (Path(args.out) / "export.json").write_text(json.dumps(figures))


def _cosines(a: Any, b: Any) -> Any:
    # float64 and explicit norms, so float32 rounding of the unit norms does not show up as "drift".
    import numpy as np

    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def _spawn(args: argparse.Namespace, worker: str, out: Path) -> None:
    command = [sys.executable, __file__, "--worker", worker, "--out", str(out)]
    command += ["--texts", str(args.texts), "--queries", str(args.queries)]
    command += ["--batch-sizes", args.batch_sizes, "--reps", str(args.reps)]
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    subprocess.run(command, check=True, env=env, stderr=subprocess.DEVNULL if not args.verbose else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=256, help="number of ~1000-character chunks")
    parser.add_argument("--queries", type=int, default=100, help="number of single-query latency samples")
    parser.add_argument("--batch-sizes", default="8,32,64,128")
    parser.add_argument("--reps", type=int, default=2, help="timed passes per batch size (best is kept)")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--skip-export", action="store_true", help="do not time a first-use ONNX export")
    parser.add_argument("--verbose", action="store_true", help="show the workers' stderr")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "export":
        run_export_worker(args)
        return
    if args.worker:
        run_worker(args.worker, args)
        return

    import numpy as np

    variants = [v for v in args.variants.split(",") if v]
    if REFERENCE not in variants:
        variants.insert(0, REFERENCE)
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
        f"{args.texts} chunks of ~1000 chars, {args.queries} queries of 8-12 words, best of {args.reps}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        if not args.skip_export:
            _spawn(args, "export", out)
            export = json.loads((out / "export.json").read_text())
            seconds = export["export_s_incl_torch_import"]
            print(f"first-use ONNX export (fresh process, incl. torch import): {seconds} s")
        results = {}
        for variant in variants:
            _spawn(args, variant, out)
            results[variant] = json.loads((out / f"{variant}.json").read_text())
        reference = {kind: np.load(out / f"{REFERENCE}.{kind}.npy") for kind in ("chunks", "queries")}
        for variant in variants:
            for kind in ("chunks", "queries"):
                cosine = _cosines(np.load(out / f"{variant}.{kind}.npy"), reference[kind])
                results[variant][f"{kind}_min_cos"] = float(cosine.min())
                results[variant][f"{kind}_max_1-cos"] = float(np.max(1 - cosine))
                results[variant][f"{kind}_mean_1-cos"] = float(np.mean(1 - cosine))

    sizes = args.batch_sizes.split(",")
    header = f"{'variant':<19}{'load s':>7}" + "".join(f"{'bs' + s + ' t/s':>11}" for s in sizes)
    header += f"{'q p50 ms':>10}{'q p95 ms':>10}{'RSS MiB':>9}{'min cos':>9}{'max 1-cos':>11}"
    header += f"{'mean 1-cos':>11}{'q max 1-cos':>12}"
    print(header)
    print("(fidelity: cosine to the minilm-st vectors of the same texts, computed in float64)")
    for variant in variants:
        r = results[variant]
        line = f"{variant:<19}{r['load_s']:>7.2f}"
        line += "".join(f"{r['texts_per_s'][s]:>11.1f}" for s in sizes)
        line += f"{r['query_ms_p50']:>10.2f}{r['query_ms_p95']:>10.2f}{r['peak_rss_mib']:>9}"
        line += f"{r['chunks_min_cos']:>9.5f}{r['chunks_max_1-cos']:>11.1e}{r['chunks_mean_1-cos']:>11.1e}"
        line += f"{r['queries_max_1-cos']:>12.1e}"
        print(line)
    for variant in variants:
        extra = f"; cache hits: {results[variant]['cache_hit_texts_per_s']} texts/s" if variant == "minilm" else ""
        print(f"  {variant}: {VARIANTS.get(variant, '')} [{results[variant]['encoder_id']}]{extra}")


if __name__ == "__main__":
    main()
