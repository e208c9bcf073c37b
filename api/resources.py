"""What the API process holds for its lifetime: Neo4j drivers, the encoder and retriever (loaded on first use),
the event store for mutations, and the lock that serialises appends."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from neo4j import AsyncDriver, AsyncGraphDatabase, Driver

from api.errors import ServiceUnavailableError
from api.graph_reader import GraphReader
from api.settings import ApiSettings
from graph.settings import Neo4jSettings

if TYPE_CHECKING:
    from api.growth.append import ProfileGrowth
    from graph.embeddings import CachedEncoder
    from graph.store import EventStore
    from query.retriever import Retriever


def open_async_driver(settings: Neo4jSettings) -> AsyncDriver:
    """An async driver for the configured server (connects lazily: the API starts even if Neo4j is down)."""
    auth = (settings.user, settings.password) if settings.password else None
    return AsyncGraphDatabase.driver(
        settings.effective_uri, auth=auth, max_connection_pool_size=64, notifications_min_severity="OFF"
    )


class Resources:
    """Long-lived handles shared by every request of one API process."""

    def __init__(
        self,
        settings: ApiSettings,
        neo4j: Neo4jSettings,
        async_driver: AsyncDriver,
        sync_driver: Driver | None = None,
        encoder: CachedEncoder | None = None,
        *,
        owns_async_driver: bool = True,
    ) -> None:
        self.settings = settings
        self.neo4j = neo4j
        self.async_driver = async_driver
        self.reader = GraphReader(async_driver, neo4j.database)
        self._owns_async_driver = owns_async_driver
        self._sync_driver = sync_driver
        self._owns_sync_driver = sync_driver is None
        self._encoder = encoder
        self._retriever: Retriever | None = None
        self._init_lock = threading.Lock()
        # Appends compute the next turn ordinals from the graph; one writer at a time keeps them gap-free.
        self.append_lock = threading.Lock()

    @property
    def database(self) -> str:
        return self.neo4j.database

    def sync_driver(self) -> Driver:
        """The blocking driver used by the event store and the retriever (opened on first use)."""
        with self._init_lock:
            if self._sync_driver is None:
                from graph.connection import open_driver
                from graph.errors import Neo4jUnavailableError

                try:
                    self._sync_driver = open_driver(self.neo4j)
                except Neo4jUnavailableError as exc:
                    raise ServiceUnavailableError("the graph database is not reachable right now") from exc
            return self._sync_driver

    def encoder(self) -> CachedEncoder:
        """The configured encoder behind the embedding cache (the model loads on its first cache miss)."""
        with self._init_lock:
            if self._encoder is None:
                from graph.embeddings import load_encoder

                self._encoder = load_encoder()
            return self._encoder

    def store(self) -> EventStore:
        """An event store on the configured database, with the encoder its projections need."""
        from graph.store import EventStore

        return EventStore(self.sync_driver(), self.database, self.encoder())

    def growth(self) -> ProfileGrowth:
        """Profile growth on this database; appends from every request share one lock."""
        from api.growth.append import ProfileGrowth

        return ProfileGrowth(
            self.store(),
            actor="api",
            memory_system=self.settings.memory_system,
            retriever=self.retriever,
            lock=self.append_lock,
        )

    def retriever(self) -> Retriever:
        """The retrieval layer's `Retriever` on this database (opened on first use)."""
        if self._retriever is None:
            from query.retriever import Retriever

            driver, encoder = self.sync_driver(), self.encoder()
            with self._init_lock:
                if self._retriever is None:
                    self._retriever = Retriever(driver, encoder, database=self.database)
        return self._retriever

    def warm_up(self) -> None:
        """Load the encoder and retriever and run one search, so the first append or search is not the one
        that pays for loading the model and compiling query plans. Failures are logged, never raised."""
        import logging

        try:
            self.encoder().encode(["warm-up"])
            self.retriever().search("HYBRID", "warm-up query", k=1)
        except Exception as exc:  # a warm-up must never take the API down
            logging.getLogger("colabench.api").warning("retrieval warm-up skipped: %s", exc)

    async def close(self) -> None:
        """Close the reader's sessions and the drivers this object opened (drivers passed in belong to the
        caller)."""
        await self.reader.close()
        if self._owns_async_driver:
            await self.async_driver.close()
        if self._sync_driver is not None and self._owns_sync_driver:
            self._sync_driver.close()
