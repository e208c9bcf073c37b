"""The embedding phase of ingest through the `openai:` encoder against a local fake /v1/embeddings server
(tests/fake_openai/embeddings.py) that answers after a fixed latency: chunks/s per request concurrency, each
from a cold cache, then a warm pass (every chunk from the cache, zero requests). No Neo4j is involved: this
measures the encoder and its cache, the part of ingest that a remote embedding endpoint bounds."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from graph.embeddings import EmbeddingCache, OpenAIEncoder
from graph.embeddings.cached import CachedEncoder
from graph.projection import texts_to_embed
from ingest.pipeline import load_input
from tests.fake_openai.embeddings import FakeEmbeddings


def run(path: Path, *, latency_ms: float, concurrencies: list[int], request_size: int, dim: int = 384) -> None:
    result = load_input(path, "kb")
    texts = texts_to_embed((e.event.TYPE, e.event.payload()) for e in result.events)
    if not texts:
        raise SystemExit(f"{path}: no chunk to embed")
    requests = -(-len(texts) // request_size)
    print(
        f"{path.name}: {len(texts):,} chunks, {requests} request(s) of <= {request_size}, fake endpoint latency "
        f"{latency_ms:g} ms, dim {dim} (embedding phase only, no Neo4j write)"
    )
    base: float | None = None
    with FakeEmbeddings(dim=dim, latency_s=latency_ms / 1000) as fake, tempfile.TemporaryDirectory() as tmp:
        OpenAIEncoder(base_url=fake.base_url, model="fake", dim=dim).encode(["warm up the SDK"])
        for concurrency in concurrencies:
            cache = EmbeddingCache(Path(tmp) / f"cold-{concurrency}.sqlite")
            encoder = CachedEncoder(
                OpenAIEncoder(
                    base_url=fake.base_url, model="fake", dim=dim, request_size=request_size, concurrency=concurrency
                ),
                cache,
            )
            before = fake.requests
            fake.max_in_flight = 0
            started = time.perf_counter()
            encoder.encode(texts)
            cold = time.perf_counter() - started
            asked = fake.requests - before
            started = time.perf_counter()
            encoder.encode(texts)
            warm = time.perf_counter() - started
            rate = len(texts) / cold
            base = base or rate
            print(
                f"concurrency {concurrency:>2}: cold {rate:9,.0f} chunks/s ({cold:6.2f} s, {asked} requests, "
                f"max {fake.max_in_flight} in flight, x{rate / base:4.2f} of concurrency {concurrencies[0]}); "
                f"warm {len(texts) / warm:9,.0f} chunks/s ({fake.requests - before - asked} requests)"
            )
