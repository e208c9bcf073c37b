"""What a Ray actor that talks to Neo4j and the LLM endpoints takes from the driver process (`ActorSettings`,
picklable) and opens on its side: the same Neo4j, encoder, retriever and LLM roles, with the driver's carried
environment and config file. Shared by the attempt actors (`run --executor ray`) and the synthesis actors
(`synth --executor ray`)."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.llm.roles import LLMRoles
from agents.llm.settings import CacheMode
from graph.config_file import config_path
from graph.ray_runtime import apply_environment, carried_environment
from graph.settings import Neo4jSettings

if TYPE_CHECKING:
    from graph.store import EventStore
    from query.retriever import Retriever


def role_overrides(roles: LLMRoles) -> dict[str, dict[str, Any]]:
    """Every role's settings as init arguments; the API key resolved here, where its variable is set."""
    out: dict[str, dict[str, Any]] = {}
    for role, settings in roles.settings.items():
        values = settings.model_dump(exclude={"role"})
        if settings.configured:
            values["api_key"] = settings.resolved_api_key()
        out[role] = values
    return out


@dataclass(frozen=True)
class ActorSettings:
    """The driver's Neo4j settings, every LLM role's settings (keys resolved), the response cache, the carried
    environment (with the cache namespace) and the text of the config file it read (None: none)."""

    neo4j: Neo4jSettings
    roles: dict[str, dict[str, Any]]
    cache_path: Path
    cache_mode: CacheMode
    env: dict[str, str]
    config_text: str | None

    @classmethod
    def from_driver(cls, roles: LLMRoles, neo4j: Neo4jSettings | None = None) -> ActorSettings:
        path = config_path()
        env = carried_environment()
        env["COLABENCH_LLM_CACHE_NAMESPACE"] = roles.cache_namespace
        # The actors keep their exchanges in the driver's store (the events they write reference them).
        env["COLABENCH_LLM_EXCHANGES"] = str(roles.exchanges_path)
        return cls(
            neo4j=neo4j or Neo4jSettings(),
            roles=role_overrides(roles),
            cache_path=roles.cache_path,
            cache_mode=roles.cache_mode,
            env=env,
            config_text=path.read_text(encoding="utf-8") if path is not None else None,
        )

    def open(self, stack: ExitStack) -> tuple[EventStore, Retriever, LLMRoles]:
        """In the actor: make its environment the driver's, then open the driver, encoder, store, retriever and
        LLM roles; `stack` closes them (and removes the config file written here)."""
        from graph.connection import open_driver
        from graph.embeddings import load_encoder
        from graph.store import EventStore
        from query.retriever import Retriever

        scratch = apply_environment(self.env, self.config_text)
        if scratch is not None:
            stack.callback(scratch.cleanup)
        driver = open_driver(self.neo4j)
        stack.callback(driver.close)
        encoder = load_encoder()
        retriever = Retriever(driver, encoder, self.neo4j.database)
        stack.callback(retriever.close)
        roles = LLMRoles(overrides=self.roles, cache_path=self.cache_path, cache_mode=self.cache_mode)
        stack.callback(roles.close)
        return EventStore(driver, self.neo4j.database, encoder), retriever, roles
