"""`SynthContext`: what every stage shares — the store, the retriever over the frozen KB, the LLM clients of
the `synthesis` role (one usage ledger per stage and sub-role), the prompts, the settings, and appending
events with the actor `synthesis:<role>`."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.llm.accounting import RoleUsage, UsageLedger
from agents.llm.client import LLMClient
from agents.llm.roles import LLMRoles
from agents.prompts.registry import PromptSet
from agents.synthesis.config import SynthesisConfig
from graph.events import DomainEvent, NewEvent
from graph.store import EventStore
from query.corpus import EVERYTHING, Corpus
from query.retriever import Retriever

LLM_ROLE = "synthesis"
WEB_SOURCE = "web"


def kb_source_list(config: SynthesisConfig) -> tuple[str, ...]:
    """Document.source values of the synthesis KB (() = every document): the configured ones plus `web`."""
    sources = tuple(config.kb_sources)
    return (*sources, WEB_SOURCE) if sources and WEB_SOURCE not in sources else sources


@dataclass
class SynthContext:
    store: EventStore
    retriever: Retriever
    roles: LLMRoles
    prompts: PromptSet
    config: SynthesisConfig
    concurrency: int = 1
    remote: Any = None  # a RayUnits pool (agents/synthesis/ray_units.py): units run in Ray actors
    web: Any = None  # WebSettings (agents/synthesis/web.py) when a web search endpoint is configured
    _ledgers: dict[tuple[str, str], UsageLedger] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def synthesis_id(self) -> str:
        return self.config.synthesis_id

    @property
    def corpus(self) -> Corpus:
        """The KB the roles search: the configured sources and the pages the web stage added (source `web`)."""
        return Corpus(sources=kb_source_list(self.config)) if self.config.kb_sources else EVERYTHING

    @property
    def database(self) -> str:
        return self.store.database

    def client(self, stage: str, role: str) -> LLMClient:
        """The synthesis endpoint's client, counting into the (stage, role) ledger."""
        with self._lock:
            ledger = self._ledgers.setdefault((stage, role), UsageLedger())
        return self.roles.client(LLM_ROLE, ledger)

    def usage(self, stage: str) -> dict[str, Any]:
        """Calls, tokens and cost of one stage so far in this process, per sub-role and in total."""
        out: dict[str, Any] = {}
        total = RoleUsage()
        with self._lock:
            items = [(role, ledger) for (st, role), ledger in self._ledgers.items() if st == stage]
        for role, ledger in sorted(items):
            usage = ledger.snapshot().get(LLM_ROLE, RoleUsage())
            out[role] = usage.model_dump()
            total.add(usage)
        out["total"] = total.model_dump()
        return out

    def take_usage(self) -> dict[str, dict[str, Any]]:
        """The usage counted so far, as plain data keyed "stage/role", and a fresh start (a Ray actor hands its
        usage to the driver after each unit)."""
        with self._lock:
            taken, self._ledgers = self._ledgers, {}
        return {f"{stage}/{role}": ledger.as_dict() for (stage, role), ledger in taken.items()}

    def merge_usage(self, usage: dict[str, dict[str, Any]]) -> None:
        """Add usage that `take_usage` handed over (from a Ray actor) to this context's ledgers."""
        with self._lock:
            for key, data in usage.items():
                stage, _, role = key.partition("/")
                self._ledgers.setdefault((stage, role), UsageLedger()).merge(UsageLedger.from_dict(data))

    def append(self, events: Sequence[tuple[str, DomainEvent]]) -> int:
        """Append (role, event) pairs in one transaction; returns how many were new."""
        if not events:
            return 0
        result = self.store.append([NewEvent(event, f"synthesis:{role}") for role, event in events])
        return result.appended

    def query(self, cypher_name: str, **params: Any) -> list[dict[str, Any]]:
        """Rows of a named Cypher file (cypher/synthesis/<name>.cypher)."""
        from graph.cypher_files import load_cypher

        with self.store.driver.session(database=self.database) as session:
            return [record.data() for record in session.run(load_cypher(f"synthesis/{cypher_name}"), **params)]
