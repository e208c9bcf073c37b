"""The spending-limit options `run` and `eval qa` share (`--max-cost`, `--max-tokens`; agents/llm/budget.py)."""

from __future__ import annotations

from typing import Any

import typer


def max_cost_option() -> Any:
    return typer.Option(
        None, "--max-cost", min=0.0, metavar="USD",
        help="stop sending once this invocation's LLM cost reaches USD (needs [llm.prices] for every model used)",
    )  # fmt: skip


def max_tokens_option() -> Any:
    return typer.Option(
        None, "--max-tokens", min=1, metavar="N",
        help="stop sending once this invocation's billed tokens (in + out) reach N",
    )  # fmt: skip


def limit_spending(
    roles: Any, used_roles: list[str], max_cost: float | None, max_tokens: int | None, *, panel: tuple[str, ...] = ()
) -> None:
    """Set this invocation's spending limits on `roles` (an LLMRoles); `--max-cost` needs a price for every model
    the command asks (the used roles' and a judge panel's other models `panel[1:]`): a usage error, exit 2,
    naming the ones without."""
    from cli.context import err_console

    if max_cost is None and max_tokens is None:
        return
    if max_cost is not None:
        from agents.llm.prices import SET_PRICES_HINT, models_without_prices

        unpriced = dict.fromkeys(("price_in_per_mtok", "price_out_per_mtok", "price_cached_per_mtok"))
        pairs = [(role, roles.settings[role]) for role in used_roles]
        pairs += [("judge", roles.settings["judge"].model_copy(update={"model": m, **unpriced})) for m in panel[1:]]
        missing = models_without_prices(pairs, roles.prices)
        if missing:
            raise typer.BadParameter(f"no price for {', '.join(missing)}: {SET_PRICES_HINT}", param_hint="--max-cost")
    budget = roles.limit_spending(max_cost_usd=max_cost, max_tokens=max_tokens)
    err_console.print(
        f"spending limit: {budget.describe()} for this invocation, checked before every request (requests in "
        "flight when it is reached still finish)"
    )
