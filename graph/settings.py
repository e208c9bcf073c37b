"""Neo4j connection and local-server settings (env vars, then the [neo4j] table of colabench.toml)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import AliasChoices, Field
from pydantic_settings import SettingsConfigDict

from graph.config_file import TableSettings


class Neo4jSettings(TableSettings):
    """Where the evidence graph lives. Without NEO4J_URI the project's local server is used."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    uri: str | None = Field(default=None, validation_alias=AliasChoices("NEO4J_URI", "uri"))
    user: str = Field(default="neo4j", validation_alias=AliasChoices("NEO4J_USER", "user"))
    password: str | None = Field(default=None, validation_alias=AliasChoices("NEO4J_PASSWORD", "password"))
    database: str = Field(default="neo4j", validation_alias=AliasChoices("NEO4J_DATABASE", "database"))
    local_host: str = Field(default="127.0.0.1", validation_alias=AliasChoices("COLABENCH_NEO4J_HOST", "local_host"))
    local_port: int = Field(default=7687, validation_alias=AliasChoices("COLABENCH_NEO4J_PORT", "local_port"))
    pagecache_mib: int = Field(
        default=512, validation_alias=AliasChoices("COLABENCH_NEO4J_PAGECACHE_MIB", "pagecache_mib")
    )
    tx_max_mib: int = Field(default=1536, validation_alias=AliasChoices("COLABENCH_NEO4J_TX_MAX_MIB", "tx_max_mib"))
    heap: str = Field(default="2g", validation_alias=AliasChoices("COLABENCH_NEO4J_HEAP", "heap"))
    start_timeout_s: float = Field(
        default=180.0, validation_alias=AliasChoices("COLABENCH_NEO4J_START_TIMEOUT", "start_timeout_s")
    )

    config_table: ClassVar[str] = "neo4j"

    @property
    def is_external(self) -> bool:
        """True when NEO4J_URI selects a server the project does not manage."""
        return bool(self.uri)

    @property
    def effective_uri(self) -> str:
        return self.uri or f"bolt://{self.local_host}:{self.local_port}"
