"""`LLMRoles`: the clients of every role for one run or command, sharing one response cache, one exchange store,
one ledger and one limiter per endpoint (roles on the same URL with the same key share it)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from agents.llm.accounting import UsageLedger
from agents.llm.budget import SpendingBudget, spent_of
from agents.llm.cache import ResponseCache
from agents.llm.client import LLMClient
from agents.llm.exchanges import ExchangeStore
from agents.llm.prices import PriceTable, with_prices
from agents.llm.rate_limit import EndpointLimiters
from agents.llm.settings import ROLES, CacheMode, LLMGlobalSettings, LLMRoleSettings, load_role_settings


class LLMRoles:
    """Settings of every role (read once), clients created on first use."""

    def __init__(
        self,
        *,
        overrides: dict[str, dict[str, Any]] | None = None,
        cache_path: Path | None = None,
        cache_mode: CacheMode | None = None,
        exchanges_path: Path | None = None,
    ) -> None:
        overrides = overrides or {}
        # `[llm.prices]` of colabench.toml: the ledger prices each role's tokens by its model's entry
        self.prices = PriceTable.load()
        self.settings: dict[str, LLMRoleSettings] = {
            role: with_prices(load_role_settings(role, **overrides.get(role, {})), self.prices) for role in ROLES
        }
        # A spending limit (`--max-cost`, `--max-tokens`), checked before every request (agents/llm/budget.py).
        self.budget: SpendingBudget | None = None
        general = LLMGlobalSettings()
        self.cache_mode: CacheMode = cache_mode or general.cache_mode
        self.cache_path = cache_path or general.cache_path
        self.cache_namespace = general.cache_namespace
        # Set by `interrupt()` (Ctrl-C): every client stops sending new requests.
        self.stop = threading.Event()
        self.cache = ResponseCache(self.cache_path) if self.cache_mode != "off" else None
        # Every request and reply of every role, kept whatever the cache mode (the events reference them).
        self.exchanges_path = exchanges_path or general.exchanges_path
        self.exchanges = ExchangeStore(self.exchanges_path)
        self.ledger = UsageLedger()
        self._clients: dict[tuple[str, int], LLMClient] = {}
        self._slots = {role: threading.BoundedSemaphore(s.concurrency) for role, s in self.settings.items()}
        self._ledgers: list[UsageLedger] = [self.ledger]
        # Every configured role's limits are known before the first request: the tightest one of an endpoint holds.
        self.limiters = EndpointLimiters()
        for s in self.settings.values():
            if s.configured:
                self.limiters.for_settings(s)

    def configured(self, role: str) -> bool:
        return self.settings[role].configured

    def client(self, role: str, ledger: UsageLedger | None = None) -> LLMClient:
        """The role's client counting into `ledger` (default: the shared one); raises LLMConfigError naming
        what to set when the role has no endpoint."""
        return self._client(role, role, self.settings[role], ledger, self.cache_namespace)

    def client_for_model(self, role: str, model: str, ledger: UsageLedger | None = None) -> LLMClient:
        """A client of the role's endpoint and parameters asking `model` instead (a judge panel's other
        models); it shares the role's cache and concurrency slots."""
        self.settings[role].require()
        unpriced = dict.fromkeys(("price_in_per_mtok", "price_out_per_mtok", "price_cached_per_mtok"))
        settings = with_prices(self.settings[role].model_copy(update={"model": model, **unpriced}), self.prices)
        return self._client(f"{role}@{model}", role, settings, ledger, self.cache_namespace)

    def _client(
        self, name: str, role: str, settings: LLMRoleSettings, ledger: UsageLedger | None, namespace: str
    ) -> LLMClient:
        """The client `name` (made once per ledger): the role's slots, its endpoint's limiter, the spending gate."""
        ledger = ledger or self.ledger
        key = (name, id(ledger))
        if key not in self._clients:
            self._clients[key] = LLMClient(
                settings,
                cache=self.cache,
                ledger=ledger,
                cache_mode=self.cache_mode,
                slots=self._slots[role],
                cache_namespace=namespace,
                stop=self.stop,
                exchanges=self.exchanges,
                limiter=self.limiters.for_settings(self.settings[role]),
                gate=self._before_request,
            )
            if all(existing is not ledger for existing in self._ledgers):
                self._ledgers.append(ledger)
        return self._clients[key]

    def limit_spending(self, *, max_cost_usd: float | None = None, max_tokens: int | None = None) -> SpendingBudget:
        """Stop sending once this command's spending reaches a limit (see agents/llm/budget.py)."""
        self.budget = SpendingBudget(
            max_cost_usd=max_cost_usd, max_tokens=max_tokens, spent=lambda: spent_of(self.total_usage())
        )
        return self.budget

    def _before_request(self, role: str) -> None:
        if self.budget is None or not self.budget.active:
            return
        try:
            self.budget.before_request(role)
        except Exception:
            self.stop.set()  # every other client stops too, and their retry waits end
            raise

    @property
    def budget_reason(self) -> str | None:
        """Why the spending limit stopped the command (None: no limit reached)."""
        return self.budget.reason if self.budget is not None else None

    def repeat_client(self, role: str, repeat: int, ledger: UsageLedger | None = None) -> LLMClient:
        """The role's client for the `repeat`-th independent asking of the same requests (J over N judge
        runs): repeat 1 is `client(role)`; every other repeat keys the response cache under a namespace of its
        own, so its replies are the endpoint's, never the first run's cached ones."""
        if repeat <= 1:
            return self.client(role, ledger)
        self.settings[role].require()
        namespace = f"{self.cache_namespace}#repeat-{repeat}"
        return self._client(f"{role}#repeat-{repeat}", role, self.settings[role], ledger, namespace)

    def total_usage(self) -> dict[str, Any]:
        """Usage summed over every ledger the clients counted into (per role and total)."""
        merged = UsageLedger()
        for ledger in self._ledgers:
            merged.merge(ledger)
        return merged.as_dict()

    def public_records(self, roles: list[str]) -> dict[str, Any]:
        """Endpoint (no credentials), model and parameters of each role, for the run record."""
        return {role: self.settings[role].public_record() for role in roles}

    def interrupt(self) -> None:
        """Stop sending: requests not yet sent raise LLMInterruptedError, retry waits end at once."""
        self.stop.set()

    def close(self) -> None:
        for client in self._clients.values():
            client.close()
        if self.cache is not None:
            self.cache.close()
        self.exchanges.close()
