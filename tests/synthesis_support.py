"""Helpers shared by the synthesis tests (no tests here): a SynthContext over a store, talking to the fake
OpenAI server answering with a SynthesisPolicy."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.fake_openai import FakeOpenAI
from tests.fake_openai.synthesis_script import SynthesisPolicy


@contextmanager
def synth_context(
    store: Any,
    policy: SynthesisPolicy,
    cache_path: Path,
    *,
    concurrency: int = 1,
    latency_s: float = 0.0,
    web: Any = None,
    **config: Any,
) -> Iterator[Any]:
    """(SynthContext, FakeOpenAI) for one synthesis; `config` are SynthesisConfig fields (dataset required)."""
    from agents.llm.roles import LLMRoles
    from agents.prompts.registry import PromptSet
    from agents.synthesis.config import SynthesisConfig
    from agents.synthesis.context import SynthContext
    from query.retriever import Retriever

    with FakeOpenAI(policy, latency_s=latency_s) as fake:
        roles = LLMRoles(
            overrides={
                "synthesis": {
                    "base_url": fake.base_url,
                    "model": "fake-synth",
                    "retry_base_s": 0.0,
                    "timeout_s": 10.0,
                    "concurrency": max(4, concurrency),
                }
            },
            cache_path=cache_path,
        )
        ctx = SynthContext(
            store=store,
            retriever=Retriever(store.driver, store.encoder),
            roles=roles,
            prompts=PromptSet(),
            config=SynthesisConfig(**config),
            concurrency=concurrency,
            web=web,
        )
        try:
            yield ctx, fake
        finally:
            roles.close()
