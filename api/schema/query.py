"""The query root: provenance lookups by id, the event log, retrieval, and graph exploration."""

from __future__ import annotations

import asyncio
from typing import Any

import strawberry

from api.errors import ApiError, BadInputError, NotFoundError
from api.explore.neighborhood import build_neighborhood, locate_node
from api.explore.node_search import find_nodes
from api.schema.adjudication import AdjudicationCase, pending_adjudications
from api.schema.attempt import Attempt
from api.schema.context import Info, context_of, loaders_of
from api.schema.dataset import Dataset
from api.schema.document import Document
from api.schema.event import Event, EventPage
from api.schema.fact import Fact
from api.schema.item import Item
from api.schema.memory import Memory
from api.schema.neighborhood import GraphNode, Neighborhood
from api.schema.node_hit import NodeHit
from api.schema.prefetch import (
    document_parts,
    item_parts,
    prefetch_documents,
    prefetch_items,
    prefetch_profiles,
    profile_parts,
    selected_fields,
)
from api.schema.profile import Profile
from api.schema.requirement import Requirement
from api.schema.run import Run
from api.schema.search import SearchResult
from api.schema.session import Session
from api.schema.state import State
from api.schema.turn import Turn
from api.schema.values import page_size
from graph.events import EVENT_TYPES

MAX_SEARCH_K = 20


async def _node(info: Info, kind: str, node_id: str) -> dict[str, Any] | None:
    if not node_id:
        raise BadInputError("id must not be empty")
    return await loaders_of(info).node(kind).load(node_id)


def _search_error(exc: Exception) -> ApiError:
    """Typed errors of the retrieval layer become client errors with their own (safe) message."""
    from query.errors import UnknownIdError

    if isinstance(exc, UnknownIdError):
        return NotFoundError(str(exc))
    return BadInputError(str(exc))


@strawberry.type
class Query:
    @strawberry.field(description="A benchmark item with its requirements and their provenance.")
    async def item(self, info: Info, id: strawberry.ID) -> Item | None:
        if not id:
            raise BadInputError("id must not be empty")
        # The item comes with the relations its selection asks for (profile, documents, requirement subtree).
        nodes = await prefetch_items(loaders_of(info), [str(id)], item_parts(selected_fields(info)))
        node = nodes.get(str(id))
        return Item.from_node(node) if node else None

    @strawberry.field(description="Items in id order (keyset paging: pass the last id as `after`).")
    async def items(
        self,
        info: Info,
        profile: strawberry.ID | None = None,
        dataset: str | None = None,
        after: str = "",
        first: int = 100,
    ) -> list[Item]:
        size = page_size(first, "items")
        rows = await context_of(info).reader.rows(
            "list_items", profile_id=profile, dataset=dataset, after=after, limit=size
        )
        parts = item_parts(selected_fields(info)) if rows else set()
        if parts:
            await prefetch_items(loaders_of(info), [r["node"]["id"] for r in rows], parts)
        return [Item.from_node(r["node"]) for r in rows]

    @strawberry.field(description="A requirement e = (r, U, F, K, a).")
    async def requirement(self, info: Info, id: strawberry.ID) -> Requirement | None:
        node = await _node(info, "requirement", str(id))
        return Requirement.from_node(node) if node else None

    @strawberry.field(description="A profile with its facts, topics, history, memories and states.")
    async def profile(self, info: Info, id: strawberry.ID) -> Profile | None:
        if not id:
            raise BadInputError("id must not be empty")
        # The profile comes with the facts, sessions (and their turns), topics and items its selection asks for.
        nodes = await prefetch_profiles(loaders_of(info), [str(id)], profile_parts(selected_fields(info)))
        node = nodes.get(str(id))
        return Profile.from_node(node) if node else None

    @strawberry.field(description="Every dataset in the graph (by name), with its profile and item counts.")
    async def datasets(self, info: Info) -> list[Dataset]:
        rows = await context_of(info).reader.rows("list_datasets")
        return [Dataset.from_row(r) for r in rows]

    @strawberry.field(description="Profiles in id order (keyset paging).")
    async def profiles(
        self, info: Info, dataset: str | None = None, after: str = "", first: int = 100
    ) -> list[Profile]:
        size = page_size(first, "profiles")
        rows = await context_of(info).reader.rows("list_profiles", dataset=dataset, after=after, limit=size)
        return [Profile.from_node(r["node"]) for r in rows]

    @strawberry.field(description="A personal fact with the turns that disclosed it and the requirements using it.")
    async def fact(self, info: Info, id: strawberry.ID) -> Fact | None:
        node = await _node(info, "fact", str(id))
        return Fact.from_node(node) if node else None

    @strawberry.field(description="A session with its turns in order.")
    async def session(self, info: Info, id: strawberry.ID) -> Session | None:
        node = await _node(info, "session", str(id))
        return Session.from_node(node) if node else None

    @strawberry.field(description="A turn: exposures, disclosed facts, memories and requirements citing it.")
    async def turn(self, info: Info, id: strawberry.ID) -> Turn | None:
        node = await _node(info, "turn", str(id))
        return Turn.from_node(node) if node else None

    @strawberry.field(description="A document: text by line range, chunks, exposures, related documents, items.")
    async def document(self, info: Info, id: strawberry.ID) -> Document | None:
        if not id:
            raise BadInputError("id must not be empty")
        # The document comes with the relations and line ranges its selection asks for.
        parts, ranges = document_parts(selected_fields(info))
        nodes = await prefetch_documents(loaders_of(info), [str(id)], parts, ranges)
        node = nodes.get(str(id))
        return Document.from_node(node) if node else None

    @strawberry.field(description="A memory card with its source turns and linked documents.")
    async def memory(self, info: Info, id: strawberry.ID) -> Memory | None:
        node = await _node(info, "memory", str(id))
        return Memory.from_node(node) if node else None

    @strawberry.field(description="A state entry with its source turns.")
    async def state(self, info: Info, id: strawberry.ID) -> State | None:
        node = await _node(info, "state", str(id))
        return State.from_node(node) if node else None

    @strawberry.field(description="An evaluation run: configuration, models, prompt hashes and attempts.")
    async def run(self, info: Info, id: strawberry.ID) -> Run | None:
        node = await _node(info, "run", str(id))
        return Run.from_node(node) if node else None

    @strawberry.field(description="Evaluation runs, newest first, optionally of one batch.")
    async def runs(self, info: Info, batch_id: str | None = None, first: int = 50) -> list[Run]:
        size = page_size(first, "runs")
        rows = await context_of(info).reader.rows("list_runs", batch_id=batch_id, limit=size)
        return [Run.from_node(r["node"]) for r in rows]

    @strawberry.field(description="The evidence trace of one item under one run.")
    async def attempt(self, info: Info, run: strawberry.ID, item: strawberry.ID) -> Attempt | None:
        node = await _node(info, "attempt", f"{run}:{item}")
        return Attempt.from_node(node) if node else None

    @strawberry.field(
        description="Accuracy verdicts waiting for a person (needs_adjudication, not yet ruled on) of these runs "
        "(default: the latest batch), with the item, answer, judge's rationale and evidence trace; "
        "`includeResolved` adds every counted verdict. Needs `Authorization: Bearer <token>` (the cases carry gold)."
    )
    async def pending_adjudications(
        self, info: Info, runs: list[strawberry.ID] | None = None, include_resolved: bool = False, first: int = 100
    ) -> list[AdjudicationCase]:
        return await pending_adjudications(info, runs, include_resolved, first)

    @strawberry.field(description="The event log in seq order, paged: events with seq > after, at most `first`.")
    async def events(self, info: Info, after: int = 0, first: int = 50, type: str | None = None) -> EventPage:
        size = page_size(first, "events", maximum=500)
        if after < 0:
            raise BadInputError(f"after must be 0 or more, got {after}")
        if type is not None and type not in EVENT_TYPES:
            raise BadInputError(f"unknown event type {type!r}; known: {', '.join(sorted(EVENT_TYPES))}")
        context = context_of(info)
        rows, head_seq = await asyncio.gather(
            context.reader.rows("events_page", after=after, type=type, limit=size + 1), context.reader.head_seq()
        )
        shown = rows[:size]
        return EventPage(
            events=[Event.from_row(r) for r in shown],
            head_seq=head_seq,
            end_cursor=int(shown[-1]["seq"]) if shown else after,
            has_next_page=len(rows) > size,
        )

    @strawberry.field(
        description="Run a named retrieval recipe (HYBRID, SEMANTIC, KEYWORD, MEMKB, MEMKB_NO_STATE, MEMKB_NO_LINKS, "
        "MEMKB_RAW_TURNS, RAW_TURNS, MEM0, GRAPHITI, AMEM); every hit resolves in the graph. Default recipe: "
        "MEMKB_RAW_TURNS with a profile (the API's appended turns get raw-turn cards), HYBRID without."
    )
    async def search(
        self,
        info: Info,
        query: str,
        profile: strawberry.ID | None = None,
        recipe: str | None = None,
        k: int = 5,
        keywords: list[str] | None = None,
        before_turn: strawberry.ID | None = None,
    ) -> SearchResult:
        if not query.strip():
            raise BadInputError("query must not be empty")
        if len(query) > 2000:
            raise BadInputError("query must be at most 2,000 characters")
        if k < 1 or k > MAX_SEARCH_K:
            raise BadInputError(f"k must be between 1 and {MAX_SEARCH_K}, got {k}")
        name = recipe or ("MEMKB_RAW_TURNS" if profile else "HYBRID")
        resources = context_of(info).resources
        from query.errors import QueryError

        try:
            # In the worker thread too: the first call opens the blocking driver and loads the encoder.
            result = await asyncio.to_thread(
                lambda: resources.retriever().search(
                    name,
                    query,
                    profile_id=str(profile) if profile else None,
                    k=k,
                    keywords=keywords,
                    before_turn_id=str(before_turn) if before_turn else None,
                )
            )
        except QueryError as exc:
            raise _search_error(exc) from exc
        return SearchResult.from_result(result)

    @strawberry.field(description="Nodes and relationships within depth 1 or 2 of any node (for graph views).")
    async def neighborhood(
        self,
        info: Info,
        id: strawberry.ID,
        label: str | None = None,
        depth: int = 1,
        limit: int = 100,
        labels: list[str] | None = None,
    ) -> Neighborhood:
        context = context_of(info)
        view = await build_neighborhood(
            context.reader,
            str(id),
            label=label,
            depth=depth,
            limit=limit,
            labels=labels,
            gold_visible=context.gold_visible,
        )
        return Neighborhood.from_view(view)

    @strawberry.field(description="Any node by id (and label when the id is ambiguous), with its properties.")
    async def node(self, info: Info, id: strawberry.ID, label: str | None = None) -> GraphNode:
        context = context_of(info)
        return GraphNode.from_view(await locate_node(context.reader, str(id), label, context.gold_visible))

    @strawberry.field(description="Find nodes by id (exact or prefix) or by words of their text.")
    async def find_nodes(self, info: Info, text: str, limit: int = 20) -> list[NodeHit]:
        context = context_of(info)
        hits = await find_nodes(context.reader, text, limit, gold_visible=context.gold_visible)
        return [NodeHit.from_hit(h) for h in hits]
