"""Benchmark the persistent embedding cache (graph/embeddings/cache.py) and print its figures: bulk put and get
of N keys (384-d float32), and the lookup of one key against a cache of N rows (best of `--reps`). The test suite
checks what the cache does; how fast it does it is measured here (the suite asserts no time).

    python bench/bench_embedding_cache.py [--keys 20000] [--reps 5]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from graph.embeddings.cache import EmbeddingCache, text_key

DIM = 384


def best_of(reps: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keys", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    keys = [text_key(f"text {i}") for i in range(args.keys)]
    vectors = np.random.default_rng(0).random((len(keys), DIM), dtype=np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        cache = EmbeddingCache(Path(tmp) / "embeddings.sqlite")
        started = time.perf_counter()
        written = cache.put_many("enc:bench", zip(keys, vectors, strict=True))
        put_s = time.perf_counter() - started
        started = time.perf_counter()
        found = cache.get_many("enc:bench", keys, DIM)
        get_s = time.perf_counter() - started
        if written != len(keys) or len(found) != len(keys):
            raise SystemExit(f"cache round trip lost rows: wrote {written}, found {len(found)} of {len(keys)}")
        one_s = best_of(args.reps, lambda: cache.get_many("enc:bench", [keys[len(keys) // 2]], DIM))
        every_s = best_of(args.reps, lambda: cache.get_many("enc:bench", keys, DIM))
    print(f"embedding cache, {len(keys):,} keys of {DIM} float32")
    print(f"  put_many (new rows) {put_s:8.3f} s   {len(keys) / put_s:>10,.0f} keys/s")
    print(f"  get_many (all keys) {get_s:8.3f} s   {len(keys) / get_s:>10,.0f} keys/s")
    print(f"  get_many one key    {one_s * 1000:8.3f} ms  (best of {args.reps}; all keys: {every_s:.3f} s)")


if __name__ == "__main__":
    main()
