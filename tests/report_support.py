"""Helpers shared by the report tests (no tests here): a real evaluation report of the `mini` bundle (a HYBRID
run answered and judged by the fake OpenAI-compatible server, reported by `agents.reports`), and the reference
answers it must not show to a request without the API token."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pytest

from graph.store import EventStore

MINI_ITEMS = Path(__file__).resolve().parent / "fixtures" / "mini_bundle" / "items.jsonl"


def reference_answers() -> list[str]:
    """The gold answers of the `mini` items (what a report must hide without the token)."""
    rows = [json.loads(line) for line in MINI_ITEMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [str(row["reference_answer"]) for row in rows if row.get("reference_answer")]


def shown_answers(text: str) -> list[str]:
    """The reference answers found in a response body, as written or HTML-escaped."""
    return [a for a in reference_answers() if a in text or html.escape(a) in text or html.escape(a, False) in text]


def run_mini_batch(
    store: EventStore, policy: Any, cache_path: Path, methods: str = "HYBRID", dataset: str = "mini"
) -> Any:
    """Run `methods` on the `mini` items, judged for accuracy, against the fake endpoint answering with
    `policy`; returns the batch plan."""
    from agents.llm.roles import LLMRoles
    from agents.methods import parse_methods
    from agents.prompts.registry import PromptSet
    from agents.runs.plan import RunOptions, plan_batch
    from agents.runs.runner import execute_batch
    from query.retriever import Retriever
    from tests.fake_openai import FakeOpenAI

    assert store.encoder is not None
    retriever = Retriever(store.driver, store.encoder)  # type: ignore[arg-type]
    try:
        with FakeOpenAI(policy) as fake:
            base: dict[str, Any] = {
                "base_url": fake.base_url,
                "model": "fake-model",
                "retry_base_s": 0.0,
                "timeout_s": 5.0,
            }
            roles = LLMRoles(
                overrides={role: dict(base) for role in ("answerer", "judge", "state", "memory")}, cache_path=cache_path
            )
            prompts = PromptSet()
            try:
                plan = plan_batch(
                    store,
                    parse_methods(methods),
                    RunOptions(dataset=dataset, judges=("accuracy",), fresh=True),
                    roles,
                    prompts,
                    encoder_id=store.encoder.encoder_id,
                )
                execute_batch(store, retriever, plan, roles, prompts, concurrency=2)
            finally:
                roles.close()
    finally:
        retriever.close()
    return plan


def write_mini_report(store: EventStore, reports: Path, data_root: Path) -> Path:
    """Run HYBRID on the `mini` items against the fake endpoint and write its report under `reports`; the
    `latest.json` pointer goes to `data_root`/reports (the data directory of the run). Returns the folder."""
    from agents.reports.data import build_report_data
    from agents.reports.write import write_report
    from tests.fake_openai.policy import AutoPolicy

    assert store.encoder is not None
    data_root.mkdir(parents=True, exist_ok=True)
    config = data_root / "empty.toml"
    config.write_text("")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("COLABENCH_CONFIG", str(config))
        env.setenv("COLABENCH_DATA_DIR", str(data_root))
        plan = run_mini_batch(store, AutoPolicy(), data_root / "llm-cache.sqlite")
        data = build_report_data(store.driver, store.database, [r.run_id for r in plan.runs], resamples=200)
        folder = reports / "_".join(data["batch_ids"])
        write_report(data, folder)
    return folder
