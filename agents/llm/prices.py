"""The price table `[llm.prices]` of colabench.toml: USD per million tokens, per model name.

    [llm.prices."gpt-4o-mini"]
    input = 0.15     # per 1M prompt tokens
    output = 0.60    # per 1M completion tokens
    cached = 0.075   # per 1M prompt tokens served from the provider's prefix cache (optional)

None is shipped: prices change and differ by provider, so the user writes the ones they pay. A role's own
`price_in_per_mtok` / `price_out_per_mtok` settings, when set, win over the table for that role.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agents.llm.errors import LLMConfigError
from agents.llm.settings import LLMRoleSettings
from graph.config_file import config_path, read_table

PRICES_TABLE = "llm.prices"
SET_PRICES_HINT = 'set [llm.prices."<model>"] input / output (USD per 1M tokens) in colabench.toml'


class ModelPrice(BaseModel):
    """What one model costs, in USD per million tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    input: float = Field(ge=0.0)
    output: float = Field(ge=0.0)
    cached: float | None = Field(default=None, ge=0.0)

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.input + tokens_out * self.output) / 1_000_000


class PriceTable:
    """Prices by model name (exact names, as the role's `model` setting spells them)."""

    def __init__(self, prices: Mapping[str, ModelPrice] | None = None) -> None:
        self.prices: dict[str, ModelPrice] = dict(prices or {})

    @classmethod
    def load(cls) -> PriceTable:
        """The `[llm.prices]` table of the config file (empty without one); a bad entry raises LLMConfigError
        naming the file, the model's table and the field."""
        raw = read_table(PRICES_TABLE)
        where = str(config_path() or "colabench.toml")
        prices: dict[str, ModelPrice] = {}
        for model, entry in raw.items():
            table = f'[llm.prices."{model}"]'
            if not isinstance(entry, dict):
                raise LLMConfigError(f"{where}: {table} must be a table with input and output, not {entry!r}")
            try:
                prices[str(model)] = ModelPrice.model_validate(entry)
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                field = ".".join(str(p) for p in first.get("loc", ())) or "entry"
                raise LLMConfigError(f"{where}: {table} field {field}: {first.get('msg', 'invalid')}") from exc
        return cls(prices)

    def get(self, model: str | None) -> ModelPrice | None:
        return self.prices.get(model) if model else None

    def __bool__(self) -> bool:
        return bool(self.prices)


def role_price(settings: LLMRoleSettings, table: PriceTable) -> ModelPrice | None:
    """The price of a role's requests: its own price settings when both are set, else its model's entry."""
    if settings.price_in_per_mtok is not None and settings.price_out_per_mtok is not None:
        listed = table.get(settings.model)
        return ModelPrice(
            input=settings.price_in_per_mtok,
            output=settings.price_out_per_mtok,
            cached=listed.cached if listed is not None else None,
        )
    return table.get(settings.model)


def with_prices(settings: LLMRoleSettings, table: PriceTable) -> LLMRoleSettings:
    """The settings with the table's price of their model filled in where the role sets none (what the usage
    ledger multiplies tokens with)."""
    price = table.get(settings.model)
    if settings.price_in_per_mtok is not None and settings.price_out_per_mtok is not None:
        if settings.price_cached_per_mtok is None and price is not None and price.cached is not None:
            return settings.model_copy(update={"price_cached_per_mtok": price.cached})
        return settings
    if price is None:
        return settings
    return settings.model_copy(
        update={
            "price_in_per_mtok": price.input,
            "price_out_per_mtok": price.output,
            "price_cached_per_mtok": price.cached,
        }
    )


def models_without_prices(models: Iterable[tuple[str, LLMRoleSettings]], table: PriceTable) -> list[str]:
    """`role (model)` of every (role, settings) whose requests have no price, in the order given."""
    missing: list[str] = []
    for role, settings in models:
        if role_price(settings, table) is None:
            entry = f"{role} ({settings.model or 'no model set'})"
            if entry not in missing:
                missing.append(entry)
    return missing


def price_record(table: PriceTable, models: Iterable[str]) -> dict[str, Any]:
    """The prices of these models as the run record keeps them (model -> {input, output, cached})."""
    return {m: table.prices[m].model_dump() for m in sorted(set(models)) if m in table.prices}
