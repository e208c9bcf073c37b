"""The `openai:` encoder sends its requests concurrently (bounded), keeps input order, and sits behind the
same embedding cache (a second pass asks the endpoint nothing)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graph.embeddings import EmbeddingCache, OpenAIEncoder
from graph.embeddings.cached import CachedEncoder
from tests.fake_openai.embeddings import FakeEmbeddings

TEXTS = [f"chunk number {i}" for i in range(12)]


def _encoder(fake: FakeEmbeddings, concurrency: int) -> OpenAIEncoder:
    return OpenAIEncoder(base_url=fake.base_url, model="m", dim=fake.dim, request_size=2, concurrency=concurrency)


def test_requests_run_concurrently_in_input_order_and_bounded() -> None:
    with FakeEmbeddings() as fake:
        sequential = _encoder(fake, 1).encode(TEXTS)
        assert fake.requests == 6 and fake.max_in_flight == 1
        # now each request waits until 3 are in flight (at most 30 s): a barrier, not a latency hoping for overlap
        fake.gather, fake.gather_bound_s = 3, 30.0
        concurrent = _encoder(fake, 3).encode(TEXTS)
    assert fake.requests == 12
    assert fake.max_in_flight == 3, "more (or fewer) requests in flight than the concurrency"
    np.testing.assert_array_equal(sequential, concurrent)


def test_concurrent_encoder_behind_the_cache_embeds_each_text_once(tmp_path: Path) -> None:
    with FakeEmbeddings() as fake:
        cached = CachedEncoder(_encoder(fake, 4), EmbeddingCache(tmp_path / "e.sqlite"))
        first = cached.encode(TEXTS + TEXTS[:3])
        asked = fake.inputs
        second = cached.encode(list(reversed(TEXTS)))
    assert asked == len(TEXTS)  # duplicates embedded once
    assert fake.inputs == asked, "the cached texts reached the endpoint again"
    np.testing.assert_array_equal(second, first[: len(TEXTS)][::-1])


def test_a_bad_concurrency_is_refused() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        OpenAIEncoder(base_url="http://127.0.0.1:9/v1", model="m", dim=4, concurrency=0)
