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
    # The heap all transactions together may hold (dbms.memory.transaction.total.max): never more than
    # TX_HEAP_SHARE of the heap, whatever is set, so the bound refuses a query before the heap runs out.
    tx_max_mib: int = Field(default=1536, validation_alias=AliasChoices("COLABENCH_NEO4J_TX_MAX_MIB", "tx_max_mib"))
    # The heap one transaction may hold (db.memory.transaction.max); 0: half of the total bound (at least 10 MiB).
    tx_each_max_mib: int = Field(
        default=0, ge=0, validation_alias=AliasChoices("COLABENCH_NEO4J_TX_EACH_MAX_MIB", "tx_each_max_mib")
    )
    heap: str = Field(default="2g", validation_alias=AliasChoices("COLABENCH_NEO4J_HEAP", "heap"))
    start_timeout_s: float = Field(
        default=180.0, validation_alias=AliasChoices("COLABENCH_NEO4J_START_TIMEOUT", "start_timeout_s")
    )

    config_table: ClassVar[str] = "neo4j"
    TX_HEAP_SHARE: ClassVar[float] = 0.7  # Neo4j's own default share of the heap for transactions

    @property
    def heap_mib(self) -> int:
        """The JVM heap (`-Xmx` syntax: 512m, 1g, 2048M, or bytes) in MiB."""
        text = self.heap.strip().lower()
        units = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}
        if text and text[-1] in units:
            return int(float(text[:-1]) * units[text[-1]])
        return int(int(text) / (1024 * 1024))

    @property
    def tx_total_bound_mib(self) -> int:
        """The bound on all transactions' heap: `tx_max_mib`, but never above TX_HEAP_SHARE of the heap (a bound
        larger than the heap never refuses anything: the heap runs out first). Neo4j's minimum is 10 MiB."""
        return max(10, min(self.tx_max_mib, int(self.heap_mib * self.TX_HEAP_SHARE)))

    @property
    def tx_each_bound_mib(self) -> int:
        """The bound on one transaction's heap: `tx_each_max_mib`, or half the total bound (at least 10 MiB), never
        above the total bound; so one runaway query is refused before it starves every other transaction."""
        total = self.tx_total_bound_mib
        wanted = self.tx_each_max_mib or max(10, total // 2)
        return min(total, wanted)

    @property
    def is_external(self) -> bool:
        """True when NEO4J_URI selects a server the project does not manage."""
        return bool(self.uri)

    @property
    def effective_uri(self) -> str:
        return self.uri or f"bolt://{self.local_host}:{self.local_port}"
