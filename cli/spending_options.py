"""The spending-limit options `run` and `eval qa` share (`--max-cost`, `--max-tokens`; agents/llm/budget.py)."""

from __future__ import annotations

from typing import Any

import typer


def max_cost_option() -> Any:
    return typer.Option(
        None, "--max-cost", min=0.0, metavar="USD",
        help="stop sending once this invocation's LLM cost reaches USD (needs \\[llm.prices] for every model used)",
    )  # fmt: skip


def max_tokens_option() -> Any:
    return typer.Option(
        None, "--max-tokens", min=1, metavar="N",
        help="stop sending once this invocation's billed tokens (in + out) reach N",
    )  # fmt: skip
