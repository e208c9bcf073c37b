"""`graphiti`: Graphiti (graphiti-core 0.31) on the project's own Neo4j database.

One Graphiti episode per public user-assistant pair, in history order, in the profile's group. Graphiti
writes its own nodes (Entity, Episodic, ...) directly; every fact edge (RELATES_TO) the episode creates,
reinforces or invalidates becomes a MemoryWritten event (`graphiti:<edge uuid>`) derived from the pair's
turns, appended by agents.memory.build with the pair's MemoryPairProcessed in one transaction.

Redo safety: the episode uuid is derived from (profile, pair), and so are the ids Graphiti gives the nodes and
edges it creates for the pair (agents.memory.graphiti.pair_ids: the same replies give the same ids, so two
builds of a history store and send the same). Graphiti writes one episode's nodes and edges in one
transaction, after an undo record of what that write overwrites (agents.memory.graphiti.undo). A pair whose
episode is in Graphiti but whose events are not (the process stopped between Graphiti's write and ours) is
undone exactly from that record and taken in again, from the state an uninterrupted build had there: a rerun
adds no duplicate and sends the requests, and records the exchanges, of an uninterrupted build.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from agents.memory import graphiti as _graphiti_env  # noqa: F401 (telemetry off before graphiti_core loads)
from agents.memory.errors import MemoryBackendError, SdkSwallowedFailureError
from agents.memory.graphiti import pair_ids, undo
from agents.memory.graphiti.clients import EncoderEmbedder, EncoderReranker, ProjectLLMClient, ResponseMode
from agents.memory.graphiti.ids import SYSTEM, episode_body, episode_uuid, group_id, memory_id, reference_time
from agents.memory.pairs import HistoryPair
from agents.memory.registry import BuildContext, BuildReport, MemorySystem, register_memory_system
from graph.cypher_files import load_cypher
from graph.events import MemoryWritten
from graph.settings import Neo4jSettings

T = TypeVar("T")
BUILDER = "graphiti-core-0.31/episode-per-pair-v1"
SOURCE_DESCRIPTION = "colabench public user-assistant pair"


@dataclass(frozen=True)
class GraphitiFact:
    """One result of Graphiti's own search, named by the project's memory id."""

    memory_id: str
    edge_uuid: str
    fact: str
    name: str
    valid_at: str | None
    invalid_at: str | None


@register_memory_system
class GraphitiMemory(MemorySystem):
    name = SYSTEM
    label = "Graphiti"
    description = "Graphiti's temporal knowledge graph: one episode per pair, its relation facts as memories"
    needs_llm = True
    search_recipe = "GRAPHITI"
    qa_k = 20
    qa_k_source = "Mem0's LoCoMo harness searches Zep (Graphiti is its open engine) for 20 edges and 20 nodes"
    memkb_cards = False
    builder = BUILDER
    ranks_with_sdk = True
    # Graphiti catches some failures (timestamps, candidate lookups) and logs a warning with the traceback
    sdk_loggers = ("graphiti_core",)

    def __init__(self, ctx: BuildContext) -> None:
        super().__init__(ctx)
        from graphiti_core import Graphiti

        pair_ids.install()
        undo.install()
        from graphiti_core.driver.neo4j_driver import Neo4jDriver
        from neo4j import AsyncGraphDatabase

        if ctx.store.encoder is None:
            raise MemoryBackendError("memory system 'graphiti' needs the project's encoder (its embedder)")
        settings = cast(Neo4jSettings, ctx.options.get("neo4j_settings") or Neo4jSettings())
        self._loop = asyncio.new_event_loop()
        # Created outside a running loop, so the driver does not schedule its own index build.
        driver = Neo4jDriver(settings.effective_uri, settings.user, settings.password, database=ctx.store.database)
        # The same connection, without the server's notifications (Graphiti's queries name properties that
        # do not exist yet, and every such query would log a warning).
        auth = (settings.user or "", settings.password or "")
        self._run(driver.client.close())
        driver.client = AsyncGraphDatabase.driver(
            settings.effective_uri, auth=auth, notifications_min_severity="OFF"
        )
        mode = cast(ResponseMode, ctx.options.get("response_format", "json_schema"))
        self._llm_client = ProjectLLMClient(ctx.llm, mode)
        self.graphiti = Graphiti(
            graph_driver=driver,
            llm_client=self._llm_client,
            embedder=EncoderEmbedder(ctx.store.encoder),
            cross_encoder=EncoderReranker(ctx.store.encoder),
        )
        self._ready = False

    # --- plumbing --------------------------------------------------------------------------------

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._loop.run_until_complete(coro)

    async def _query(self, name: str, **params: Any) -> list[Any]:
        result = await self.graphiti.driver.execute_query(cast(Any, load_cypher(name)), params=params)
        return list(result.records)

    def _ensure_ready(self) -> None:
        """Check that Graphiti's driver reaches the EventStore's database, then build Graphiti's own indexes
        and constraints (IF NOT EXISTS; their names differ from the project's schema)."""
        if self._ready:
            return
        store = self.ctx.store
        with store.driver.session(database=store.database) as session:
            ours = session.run(load_cypher("memory/graphiti_database_id")).single()
        theirs = self._run(self._query("memory/graphiti_database_id"))
        if ours is None or not theirs or ours["id"] != theirs[0]["id"]:
            raise MemoryBackendError(
                "memory system 'graphiti': Graphiti's Neo4j connection (NEO4J_URI / COLABENCH_NEO4J_PORT) reaches "
                "another database than the evidence graph; point both at the same server"
            )
        self._run(self.graphiti.build_indices_and_constraints())
        self._ready = True

    def sdk_search(self, profile_id: str, query: str, k: int = 5) -> list[str]:
        """Graphiti's own hybrid search, as the project's memory ids."""
        return [fact.memory_id for fact in self.search_facts(profile_id, query, limit=k)]

    def close(self) -> None:
        try:
            self._run(self.graphiti.close())
        finally:
            self._loop.close()

    # --- building --------------------------------------------------------------------------------

    def build(self, profile_id: str) -> BuildReport:
        from agents.memory.build import processed_pair_ids

        # a process stopped between a pair's events and the removal of its undo record left that record behind
        done = [episode_uuid(profile_id, pair_id) for pair_id in sorted(processed_pair_ids(self, profile_id))]
        if done:
            store = self.ctx.store
            with store.driver.session(database=store.database) as session:
                session.run(load_cypher("memory/graphiti_undo_drop"), episodes=done).consume()
        return super().build(profile_id)

    def build_pair(self, profile_id: str, pair: HistoryPair) -> list[MemoryWritten]:
        self._ensure_ready()
        body = episode_body(pair)
        if not body:
            return []
        self._llm_client.raised.clear()
        store = self.ctx.store
        with pair_ids.pair_seed(profile_id, pair.pair_id), undo.pending_episode(
            store, episode_uuid(profile_id, pair.pair_id), group_id(profile_id)
        ):
            writes = self._run(self._add_pair(profile_id, pair, body))
        if self._llm_client.raised:  # Graphiti caught a reply check's error and finished the episode without it
            raised = self._llm_client.raised
            raise SdkSwallowedFailureError(
                f"memory system 'graphiti', profile {profile_id!r}: Graphiti caught {len(raised)} failed LLM "
                f"call(s) and carried on while taking in pair {pair.pair_id!r} (first: {raised[0][:600]}); the pair "
                "counts as failed: nothing of it was written, and the build of this profile stops here"
            )
        return writes

    async def _add_pair(self, profile_id: str, pair: HistoryPair, body: str) -> list[MemoryWritten]:
        from graphiti_core.nodes import EpisodeType, EpisodicNode
        from graphiti_core.search.search_utils import RELEVANT_SCHEMA_LIMIT

        group = group_id(profile_id)
        ep_uuid = episode_uuid(profile_id, pair.pair_id)
        at = reference_time(pair)
        await self._undo_unrecorded(group, ep_uuid)
        previous = await self.graphiti.retrieve_episodes(
            at, last_n=RELEVANT_SCHEMA_LIMIT, group_ids=[group], source=EpisodeType.message
        )
        # Saved first under its deterministic uuid; add_episode then fills it in (one write transaction).
        await EpisodicNode(
            uuid=ep_uuid,
            name=pair.pair_id,
            group_id=group,
            labels=[],
            source=EpisodeType.message,
            source_description=f"{SOURCE_DESCRIPTION} {pair.pair_id} (turns {', '.join(pair.turn_ids)})",
            content=body,
            created_at=at,
            valid_at=at,
        ).save(self.graphiti.driver)
        result = await self.graphiti.add_episode(
            name=pair.pair_id,
            episode_body=body,
            source_description=SOURCE_DESCRIPTION,
            reference_time=at,
            source=EpisodeType.message,
            group_id=group,
            uuid=ep_uuid,
            previous_episode_uuids=[e.uuid for e in previous if e.uuid != ep_uuid],
        )
        return await self._writes(profile_id, pair, ep_uuid, result)

    async def _undo_unrecorded(self, group: str, ep_uuid: str) -> None:
        """Remove what an earlier attempt at this pair left in Graphiti (its events are not in the log)."""
        store = self.ctx.store
        self._clear_undo(group, keep=ep_uuid)
        with store.driver.session(database=store.database) as session:
            record = session.run(load_cypher("memory/graphiti_undo_exists"), episode=ep_uuid).single()
        if record is not None and record["n"]:
            undo.apply_undo(store, ep_uuid)  # Graphiti may have written the episode: put back what it changed
        elif (await self._query("memory/graphiti_episode_exists", uuid=ep_uuid))[0]["n"]:
            # Stopped before Graphiti's write (the episode is the bare node saved below: removing it asks
            # nothing), or written by a version that kept no undo record.
            await self.graphiti.remove_episode(ep_uuid)

    def _clear_undo(self, group: str, keep: str = "") -> None:
        store = self.ctx.store
        with store.driver.session(database=store.database) as session:
            session.run(load_cypher("memory/graphiti_undo_clear"), group=group, keep=keep).consume()

    def pair_written(self, profile_id: str, pair: HistoryPair) -> None:
        """The pair's events are in the log: its undo record is no longer needed."""
        self._clear_undo(group_id(profile_id))

    async def _writes(self, profile_id: str, pair: HistoryPair, ep_uuid: str, result: Any) -> list[MemoryWritten]:
        """The MemoryWritten events of one episode: ADD for a fact edge new to the profile's memory, UPDATE for
        one it already holds (Graphiti merged a duplicate fact into it, or invalidated it: `invalid_at`)."""
        edges = {edge.uuid: edge for edge in result.edges}
        if not edges:
            return []
        names = {node.uuid: node.name for node in result.nodes}
        missing = sorted({u for e in edges.values() for u in (e.source_node_uuid, e.target_node_uuid)} - set(names))
        if missing:
            found = await self._query("memory/graphiti_entity_names", uuids=missing)
            names.update({r["uuid"]: r["name"] for r in found})
        store = self.ctx.store
        with store.driver.session(database=store.database) as session:
            record = session.run(
                load_cypher("memory/graphiti_known_memories"),
                system=SYSTEM,
                profile_id=profile_id,
                ids=[memory_id(u) for u in edges],
            ).single()
        known = set(record["ids"]) if record else set()
        writes: list[MemoryWritten] = []
        for uuid, edge in edges.items():
            mid = memory_id(uuid)
            metadata = {
                "episode_uuid": ep_uuid,
                "group_id": edge.group_id,
                "edge_name": edge.name,
                "source_entity": names.get(edge.source_node_uuid),
                "target_entity": names.get(edge.target_node_uuid),
                "valid_at": _iso(edge.valid_at),
                "invalid_at": _iso(edge.invalid_at),
                "expired_at": _iso(edge.expired_at),
                "episodes": list(edge.episodes),
            }
            writes.append(
                MemoryWritten(
                    system=SYSTEM,
                    memory_id=mid,
                    profile_id=profile_id,
                    op="UPDATE" if mid in known else "ADD",
                    text=edge.fact,
                    source_turn_ids=pair.turn_ids,
                    metadata=metadata,
                )
            )
        return writes

    # --- Graphiti's own search -------------------------------------------------------------------

    def search_facts(self, profile_id: str, query: str, limit: int = 10) -> list[GraphitiFact]:
        """Graphiti's built-in hybrid search (BM25 + cosine over relation facts, RRF) in the profile's group
        only; each fact carries the project's memory id."""
        self._ensure_ready()
        edges = self._run(self.graphiti.search(query, group_ids=[group_id(profile_id)], num_results=limit))
        return [
            GraphitiFact(memory_id(e.uuid), e.uuid, e.fact, e.name, _iso(e.valid_at), _iso(e.invalid_at))
            for e in edges
        ]


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None
