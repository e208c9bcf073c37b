"""The Retriever: runs a named recipe against the evidence graph and returns traceable hits.

`search` validates its input (typed errors from query.errors), embeds the query once, runs the recipe's
knowledge channels (keyword, semantic, memory-linked) and fuses them with RRF, ranks the profile's memory
cards, reads the profile's active states, and returns every hit with ids that resolve in the graph.
Semantic + keyword over the whole graph (HYBRID) run with their fusion as one statement
(`KnowledgeChannels.hybrid`, the same hits and list sizes as the two channels fused here); a search whose only
work is one statement runs it without a worker thread. A recipe with `keyword_padding` pads the knowledge keyword
list to the channel depth (documents at score 0, ties by id) and runs its channels as two statements.
`read` is the Read tool. Timings per stage are reported in milliseconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from threading import Lock
from typing import Any, TypeVar

import numpy as np
from neo4j import Driver

from graph.cypher_files import load_cypher
from graph.projection import VectorEncoder
from query.corpus import EVERYTHING, Corpus
from query.errors import DocumentNotChunkedError, EncoderMismatchError, UnknownProfileError, UnknownTurnError
from query.fusion import Fused, fuse_channels
from query.keyword_analyzers import get_analyzer
from query.knowledge import FUSED_CHANNELS, Candidate, ChannelRun, HybridRun, KnowledgeChannels
from query.linked_memory_response import memory_response
from query.lucene import build_lucene_query
from query.memory_channels import Card, Cutoff, MemoryChannels, RankedCard
from query.memory_rankers import memory_ranker
from query.query_vectors import QueryEmbedder
from query.read_tool import MAX_LINES, read_document
from query.recipes import Recipe, get_recipe
from query.results import DocumentHit, MemoryHit, ReadResult, SearchResult, StateHit
from query.round_robin import expand_round_robin
from query.search_call import SearchCall, check_search_input
from query.states import profile_states
from query.tokens import WORDPIECE, TokenCounter

_CHANNEL_ORDER = ("semantic", "keyword", "memory_linked")
# Search returns 5 documents by default and at most 20 (the agent protocol).
MAX_K = 20
# Internal rankings for evaluation may go deeper (whole memory sets of a profile).
MAX_EVAL_K = 10_000

T = TypeVar("T")

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = Lock()


def _shared_pool() -> ThreadPoolExecutor:
    """Worker threads that overlap a search's channel queries, shared by all retrievers of the process."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="retriever")
        return _POOL


class Retriever:
    """Retrieval over one Neo4j database with one encoder (the one that made the graph's vectors; usually
    the CachedEncoder of `graph.embeddings.load_encoder()`)."""

    def __init__(
        self,
        driver: Driver,
        encoder: VectorEncoder,
        database: str = "neo4j",
        *,
        corpus: Corpus | None = None,
        exact_max_chunks: int | None = None,
        one_statement: bool = True,
    ) -> None:
        """`one_statement=False` runs HYBRID's two channels as separate statements fused in Python even where
        one statement could serve (the reference path the one-statement path is tested and timed against)."""
        self.driver = driver
        self.encoder = encoder
        self.database = database
        self.default_corpus = corpus or EVERYTHING
        self.knowledge = KnowledgeChannels(driver, database, exact_max_chunks=exact_max_chunks)
        self.memory = MemoryChannels(driver, database)
        self.query_embedder = QueryEmbedder(encoder)
        self.one_statement = one_statement
        self._encoder_checked = False
        self._pool = _shared_pool()
        # What Read's 3,000-token limit and A-MEM's 5,120-token cap count in: a run sets the answering model's
        # tokenizer (query/model_tokens.py); WordPiece (named as the fallback) until then.
        self.token_counter: TokenCounter = WORDPIECE

    def close(self) -> None:
        """Nothing to release (the worker threads are shared by every retriever); kept for symmetry."""

    # --- public API ---------------------------------------------------------------------------------

    def search(
        self,
        recipe: str | Recipe,
        query: str,
        *,
        profile_id: str | None = None,
        k: int = 5,
        keywords: list[str] | None = None,
        before_turn_id: str | None = None,
        corpus: Corpus | None = None,
    ) -> SearchResult:
        """Run `recipe` for `query`: up to k documents (knowledge recipes), k memories and the state list
        (memory recipes). `keywords` replace the query in the keyword channel; `before_turn_id` is the last
        turn of the history that memory and states may come from (inclusive); `corpus` restricts documents.

        Raises QueryError subclasses for an unknown recipe, an empty query, k outside 1..20, a missing or
        unknown profile, an unknown cut-off turn, and a result document without chunks."""
        return self._search(get_recipe(recipe), query, profile_id, k, keywords, before_turn_id, corpus, MAX_K)

    def search_memories(
        self,
        recipe: str | Recipe,
        query: str,
        *,
        profile_id: str,
        k: int,
        before_turn_id: str | None = None,
    ) -> SearchResult:
        """Only the memory ranking of `recipe` (its memory channels), up to k cards (k may exceed 20: this
        is for evaluation). Documents and states are not searched."""
        base = get_recipe(recipe)
        memory_only = base.model_copy(
            update={"knowledge_channels": (), "return_memories": True, "return_states": False}
        )
        return self._search(memory_only, query, profile_id, k, None, before_turn_id, None, MAX_EVAL_K)

    def read(self, doc_id: str, start_line: int = 1, n_lines: int = MAX_LINES) -> ReadResult:
        """The Read tool: at most 100 lines and 3,000 tokens of `doc_id` from `start_line` (see query.read_tool)."""
        return read_document(self.driver, self.database, doc_id, start_line, n_lines, self.token_counter)

    # --- the search flow ----------------------------------------------------------------------------

    def _search(
        self,
        recipe: Recipe,
        query: str,
        profile_id: str | None,
        k: int,
        keywords: list[str] | None,
        before_turn_id: str | None,
        corpus: Corpus | None,
        max_k: int,
    ) -> SearchResult:
        """The search as named steps: plan, start what needs no query vector, embed, start the vector channels,
        rank the memory cards, collect the knowledge lists and fuse them, shape memories and states."""
        started = time.perf_counter()
        call = self._plan(recipe, query, profile_id, k, keywords, before_turn_id, corpus, max_k)
        # The profile check runs beside the embedding; its errors are raised before any memory is read.
        profile_future = self._start_profile(call)
        # Work that needs no query vector starts first and overlaps the embedding.
        keyword_future = self._start_keyword(call)
        self._embed(call)
        fused_future = self._start_hybrid(call)
        semantic_future = self._start_semantic(call)
        if profile_future is not None:
            call.n_cards, call.cutoff = profile_future.result()
        states_future = self._start_states(call)
        ranked_cards = self._rank_memories(call)
        lists, links_by_card = self._knowledge_lists(call, ranked_cards, keyword_future, semantic_future)
        documents = self._knowledge_documents(call, lists, fused_future)
        memories = self._memory_hits(call, ranked_cards, links_by_card)
        states = self._states(call, states_future)
        call.timings["total"] = _ms(started)
        return call.result(documents, memories, states)

    # --- the search's steps, in the order _search runs them -----------------------------------------

    def _plan(
        self,
        recipe: Recipe,
        query: str,
        profile_id: str | None,
        k: int,
        keywords: list[str] | None,
        before_turn_id: str | None,
        corpus: Corpus | None,
        max_k: int,
    ) -> SearchCall:
        """Check the input (typed errors) and the encoder; decide each channel's depth, the keyword channel's
        Lucene query, whether HYBRID runs as one statement and whether the search needs a worker thread."""
        text = check_search_input(recipe, query, profile_id, k, before_turn_id, max_k)
        # Documents each channel returns: a recipe with one knowledge channel ranks by that channel alone, so
        # its top k is the channel's top k (the deeper list only feeds a fusion); fewer rows, the same hits.
        depth = min(recipe.channel_depth, k) if len(recipe.knowledge_channels) == 1 else recipe.channel_depth
        call = SearchCall(
            recipe=recipe,
            text=text,
            profile_id=profile_id,
            k=k,
            keywords=[kw for kw in (keywords or []) if kw.strip()] or None,
            before_turn_id=before_turn_id,
            corpus=corpus or self.default_corpus,
            max_k=max_k,
            analyzer=get_analyzer(recipe.keyword_analyzer),
            depth=depth,
        )
        self._check_encoder()
        if "keyword" in recipe.knowledge_channels:
            call.lucene = build_lucene_query(text, call.keywords, call.analyzer.lucene_terms)
            if call.lucene is None:
                call.notes.append(
                    "keyword channel: the query has no searchable term (only stop words, punctuation or "
                    "whitespace), so it returned nothing"
                )
        # Semantic + keyword over the whole graph: both channels and their fusion run as one statement after the
        # embedding (one round trip, k rows back instead of 2 x depth; docs/retrieval.md "Side by side"); a
        # padded keyword list is padded here, so it takes the two statements.
        call.one_statement = (
            self.one_statement
            and recipe.knowledge_channels == FUSED_CHANNELS
            and not recipe.keyword_padding
            and call.lucene is not None
            and self.knowledge.fuses_in_one_statement(call.corpus)
        )
        # A search whose only work is one knowledge statement runs it in this thread: there is nothing to overlap
        # it with, and a hand-off to a worker thread waits for a time slice on a busy machine.
        call.alone = profile_id is None and (call.one_statement or len(recipe.knowledge_channels) == 1)
        return call

    def _start_profile(self, call: SearchCall) -> Future[tuple[int, Cutoff | None]] | None:
        """The profile's live card count and history cut-off, on a worker thread (None: no profile)."""
        if call.profile_id is None:
            return None
        return self._submit(
            call.timings,
            "profile",
            self._profile_context,
            call.profile_id,
            call.before_turn_id,
            call.recipe.memory_system,
        )

    def _start_keyword(self, call: SearchCall) -> Future[ChannelRun] | None:
        """The knowledge keyword channel on its own statement (not when HYBRID runs as one statement)."""
        if call.lucene is None or call.one_statement:
            return None
        recipe = call.recipe
        return self._start(
            call.alone,
            call.timings,
            "keyword",
            self.knowledge.keyword,
            call.lucene,
            call.corpus,
            call.depth,
            recipe.channel_chunks,
            call.analyzer.fulltext_index,
        )

    def _embed(self, call: SearchCall) -> None:
        """The query vector, when a channel needs it."""
        if call.needs_vector:
            t0 = time.perf_counter()
            call.vector = self.query_embedder.embed(call.text)
            call.timings["embed"] = _ms(t0)

    def _start_hybrid(self, call: SearchCall) -> Future[HybridRun] | None:
        """HYBRID's two channels and their fusion as one statement."""
        if not call.one_statement:
            return None
        assert call.vector is not None and call.lucene is not None
        recipe = call.recipe
        args = (call.vector, call.lucene, call.depth, recipe.channel_chunks, call.k, recipe.kappa)
        return self._start(
            call.alone, call.timings, "hybrid", self.knowledge.hybrid, *args, call.analyzer.fulltext_index
        )

    def _start_semantic(self, call: SearchCall) -> Future[ChannelRun] | None:
        """The knowledge semantic channel on its own statement."""
        if "semantic" not in call.recipe.knowledge_channels or call.one_statement:
            return None
        assert call.vector is not None
        return self._start(
            call.alone,
            call.timings,
            "semantic",
            self.knowledge.semantic,
            call.vector,
            call.corpus,
            call.depth,
            call.recipe.channel_chunks,
        )

    def _start_states(self, call: SearchCall) -> Future[tuple[list[StateHit], list[str]]] | None:
        """The profile's active states at the cut-off, on a worker thread."""
        if not (call.recipe.return_states and call.profile_id is not None):
            return None
        return self._submit(
            call.timings,
            "states",
            profile_states,
            self.driver,
            self.database,
            call.profile_id,
            call.recipe.state_system,
            call.cutoff,
        )

    def _rank_memories(self, call: SearchCall) -> list[RankedCard]:
        """The profile's visible cards ranked by the recipe's memory channels (or the memory system's own
        search); notes say why the ranking is empty or cut."""
        recipe, profile_id = call.recipe, call.profile_id
        if not (call.wants_memory and profile_id is not None):
            return []
        cards_future: Future[list[Card]] | None = None
        if not call.semantic_memory and call.n_cards:
            cards_future = self._submit(
                call.timings, "memory_cards", self.memory.cards, profile_id, recipe.memory_system, None, call.cutoff
            )
        if call.n_cards == 0:
            call.notes.append(
                f"profile {profile_id} has no memory cards of system {recipe.memory_system!r}: run "
                f"`./colabench memory build --system {recipe.memory_system} --profile {profile_id}`"
            )
            return []
        if cards_future is not None:
            cards = cards_future.result()
        else:
            t0 = time.perf_counter()
            cards = self.memory.cards(profile_id, recipe.memory_system, call.vector, call.cutoff)
            call.timings["memory_cards"] = _ms(t0)
        if call.cutoff is not None and len(cards) < call.n_cards:
            call.notes.append(
                f"history cut-off at turn {call.cutoff.turn_id}: {len(cards)} of {call.n_cards} memory cards are "
                "visible"
            )
        t0 = time.perf_counter()
        if recipe.sdk_ranking:
            depth = call.k if call.cutoff is None else call.n_cards
            ranked_cards = self._sdk_ranked(recipe, cards, profile_id, call.text, depth)
        else:
            sizes: dict[str, int] = {}
            ranked_cards = self.memory.rank(
                cards,
                recipe.memory_channels,
                call.text,
                recipe.kappa,
                (profile_id, recipe.memory_system),
                analyzer=call.analyzer.name,
                padding=recipe.keyword_padding,
                sizes=sizes,
            )
            call.list_sizes.update({f"memory.{name}": n for name, n in sizes.items()})
        call.timings["memory_rank"] = _ms(t0)
        if not ranked_cards:
            call.notes.append("no memory card matched the query")
        return ranked_cards

    def _knowledge_lists(
        self,
        call: SearchCall,
        ranked_cards: list[RankedCard],
        keyword_future: Future[ChannelRun] | None,
        semantic_future: Future[ChannelRun] | None,
    ) -> tuple[dict[str, list[Candidate]], dict[str, list[str]]]:
        """Each knowledge channel's document list (those the one HYBRID statement fuses are left out) and the
        cards' document links the memory-linked channel read."""
        lists: dict[str, list[Candidate]] = {}
        links_by_card: dict[str, list[str]] = {}
        for channel in call.recipe.knowledge_channels:
            if channel == "memory_linked":
                t0 = time.perf_counter()
                linked, links_by_card = self._memory_linked(ranked_cards, call.recipe.linked_budget, call.corpus)
                call.timings["memory_linked"] = _ms(t0)
                lists["memory_linked"] = [Candidate(doc_id, 0.0) for doc_id in linked]
                if ranked_cards and not any(links_by_card.values()):
                    call.notes.append(
                        f"memory-linked channel: no memory card of profile {call.profile_id} has document links "
                        f"in this corpus; run `./colabench memory build --profile {call.profile_id}` (the "
                        "channel is empty)"
                    )
            elif call.one_statement:
                continue
            elif channel == "keyword":
                found = self._channel_result(keyword_future, "keyword", call.k, call.notes)
                # Sizes, not notes: notes reach the answering agent's tool output (the evaluation counts these).
                call.list_sizes.update({"knowledge.keyword": len(found), "knowledge.budget": call.depth})
                if call.recipe.keyword_padding and len(found) < call.depth:
                    t0 = time.perf_counter()
                    exclude = [c.doc_id for c in found]
                    found = found + self.knowledge.padding(call.corpus, call.depth - len(found), exclude)
                    call.timings["keyword_padding"] = _ms(t0)
                    call.list_sizes["knowledge.keyword_padded"] = len(found)
                lists["keyword"] = found
            elif channel == "semantic":
                lists["semantic"] = self._channel_result(semantic_future, "semantic", call.k, call.notes)
                call.list_sizes["knowledge.semantic"] = len(lists["semantic"])
        return lists, links_by_card

    def _knowledge_documents(
        self,
        call: SearchCall,
        lists: dict[str, list[Candidate]],
        fused_future: Future[HybridRun] | None,
    ) -> list[DocumentHit]:
        """The top k documents: the one HYBRID statement's rows, or the channel lists fused here."""
        if fused_future is not None:
            run = fused_future.result()
            # the sizes the two statements report (`_knowledge_lists`)
            call.list_sizes.update(
                {
                    "knowledge.semantic": run.n_semantic,
                    "knowledge.keyword": run.n_keyword,
                    "knowledge.budget": call.depth,
                }
            )
            return self._hits(run.fused, call.k, call.notes)
        if call.recipe.knowledge_channels:
            return self._documents(call.recipe, lists, call.k, call.vector, call.timings, call.notes)
        return []

    def _memory_hits(
        self, call: SearchCall, ranked_cards: list[RankedCard], links_by_card: dict[str, list[str]]
    ) -> list[MemoryHit]:
        """The top k memory cards as hits, shaped as the memory system's own response where it has one (not
        for evaluation depths)."""
        recipe = call.recipe
        if not recipe.return_memories:
            return []
        shaped = memory_response(recipe) if call.max_k == MAX_K else None
        if shaped is not None:
            return shaped.respond(
                self.memory,
                ranked_cards,
                call.k,
                lambda top: self._memories(recipe, top, links_by_card, call.corpus),
                call.notes,
                self.token_counter,
            )
        return self._memories(recipe, ranked_cards[: call.k], links_by_card, call.corpus)

    @staticmethod
    def _states(
        call: SearchCall, states_future: Future[tuple[list[StateHit], list[str]]] | None
    ) -> list[StateHit]:
        if states_future is None:
            return []
        states, state_notes = states_future.result()
        call.notes.extend(state_notes)
        return states

    # --- pieces -------------------------------------------------------------------------------------

    def _start(
        self, inline: bool, timings: dict[str, float], name: str, fn: Callable[..., T], *args: Any
    ) -> Future[T]:
        """`fn(*args)` on a worker thread, or (`inline`) now in this thread as an already completed future."""
        if not inline:
            return self._submit(timings, name, fn, *args)
        done: Future[T] = Future()
        t0 = time.perf_counter()
        try:
            done.set_result(fn(*args))
        except Exception as exc:  # raised where the result is read, as from a worker thread
            done.set_exception(exc)
        finally:
            timings[name] = _ms(t0)
        return done

    def _submit(self, timings: dict[str, float], name: str, fn: Callable[..., T], *args: Any) -> Future[T]:
        def timed() -> T:
            t0 = time.perf_counter()
            try:
                return fn(*args)
            finally:
                timings[name] = _ms(t0)

        return self._pool.submit(timed)

    def _check_encoder(self) -> None:
        if self._encoder_checked:
            return
        with self.driver.session(database=self.database) as session:
            meta = session.run(load_cypher("admin/read_meta")).single()
        graph_encoder = meta["encoder_id"] if meta else None
        if graph_encoder and graph_encoder != self.encoder.encoder_id:
            raise EncoderMismatchError(
                f"the graph's vectors were made by encoder {graph_encoder}, but this retriever embeds queries "
                f"with {self.encoder.encoder_id}; set COLABENCH_ENCODER to the graph's encoder or rebuild the graph"
            )
        self._encoder_checked = True

    def _profile_context(self, profile_id: str, before_turn_id: str | None, system: str) -> tuple[int, Cutoff | None]:
        """(live cards of `system`, the cut-off) for an existing profile; typed errors otherwise."""
        with self.driver.session(database=self.database) as session:
            row = session.run(
                load_cypher("query/profile_context"), profile_id=profile_id, turn_id=before_turn_id, system=system
            ).single()
        assert row is not None
        if not row["profile_exists"]:
            raise UnknownProfileError(
                f"no profile {profile_id!r} in the graph; ingest its dataset first, or check the id "
                "(ids are case-sensitive)"
            )
        cutoff = None
        if before_turn_id is not None:
            if not row["turn_exists"]:
                raise UnknownTurnError(f"history cut-off turn {before_turn_id!r} does not exist in the graph")
            if row["turn_profile_id"] != profile_id:
                raise UnknownTurnError(
                    f"history cut-off turn {before_turn_id!r} belongs to profile {row['turn_profile_id']!r}, "
                    f"not {profile_id!r}"
                )
            cutoff = Cutoff(before_turn_id, int(row["cut_session"]), int(row["cut_turn"]))
        return int(row["n_cards"]), cutoff

    def _channel_result(
        self, future: Future[ChannelRun] | None, name: str, k: int, notes: list[str]
    ) -> list[Candidate]:
        if future is None:
            return []
        run = future.result()
        if run.starved and len(run.candidates) < k:
            notes.append(
                f"{name} channel: the corpus filter left {len(run.candidates)} documents (< k={k}) among the "
                f"top {run.chunks_read} chunks of the index; more may exist further down"
            )
        return run.candidates

    @staticmethod
    def _sdk_ranked(recipe: Recipe, cards: list[Card], profile_id: str, text: str, depth: int) -> list[RankedCard]:
        """Cards in the order the memory system's own search gives (query.memory_rankers); ids that are not
        live cards of the profile visible at the cut-off are dropped, so every hit resolves."""
        ranker = memory_ranker(recipe.memory_system, recipe.name)
        by_id = {card.memory_id: card for card in cards}
        ranked: list[RankedCard] = []
        for memory_id in ranker(profile_id, text, max(1, depth)):
            card = by_id.pop(memory_id, None)
            if card is not None:
                rank = len(ranked) + 1
                ranked.append(RankedCard(card, 1.0 / rank, {"sdk": rank}))
        return ranked

    def _memory_linked(
        self, ranked: list[RankedCard], budget: int, corpus: Corpus
    ) -> tuple[list[str], dict[str, list[str]]]:
        """L_mem: round robin over the cards in rank order; links are fetched for as many top cards as the
        budget could need, and for more only when those run out."""
        links: dict[str, list[str]] = {}
        start = 0
        batch = max(budget, 1)
        linked: list[str] = []
        while start < len(ranked):
            ids = [rc.card.memory_id for rc in ranked[start : start + batch]]
            links.update(self.memory.links(ids, corpus))
            start += batch
            ordered = [links.get(rc.card.memory_id, []) for rc in ranked[:start]]
            linked = expand_round_robin(ordered, budget)
            if len(linked) >= budget:
                break
        return linked, links

    def _documents(
        self,
        recipe: Recipe,
        lists: dict[str, list[Candidate]],
        k: int,
        vector: np.ndarray | None,
        timings: dict[str, float],
        notes: list[str],
    ) -> list[DocumentHit]:
        t0 = time.perf_counter()
        matched = {name: {c.doc_id: c for c in cands if c.has_snippet} for name, cands in lists.items()}
        scored = {name: [(c.doc_id, c.score) for c in cands] for name, cands in lists.items()}
        chosen = fuse_channels(scored, recipe.kappa)[:k]
        # Snippet: the best chunk from the channel where the document ranks best (semantic first on ties).
        snippet: dict[str, Candidate] = {}
        for f in chosen:
            for channel, _rank in sorted(f.channel_ranks.items(), key=lambda kv: (kv[1], _CHANNEL_ORDER.index(kv[0]))):
                found = matched.get(channel, {}).get(f.item_id)
                if found is not None:
                    snippet[f.item_id] = found
                    break
        timings["fuse"] = _ms(t0)
        lacking = [f.item_id for f in chosen if f.item_id not in snippet]
        if lacking:
            t0 = time.perf_counter()
            snippet.update(self.knowledge.snippets(lacking, vector))
            timings["snippets"] = _ms(t0)
        missing = [f.item_id for f in chosen if f.item_id not in snippet]
        if missing:
            raise DocumentNotChunkedError(
                f"documents {missing} have no chunks, so they cannot give a snippet; their ingest did not "
                "finish: run the same `./colabench ingest` command again to resume it"
            )
        return self._hits([(f, snippet[f.item_id]) for f in chosen], k, notes)

    @staticmethod
    def _hits(chosen: list[tuple[Fused, Candidate]], k: int, notes: list[str]) -> list[DocumentHit]:
        """Document hits in the given order: each fused document with the snippet of its chosen chunk."""
        hits = []
        for rank, (f, c) in enumerate(chosen, start=1):
            assert c.chunk_id is not None and c.start_line is not None and c.end_line is not None
            hits.append(
                DocumentHit(
                    doc_id=f.item_id,
                    title=c.title or f.item_id,
                    start_line=c.start_line,
                    end_line=c.end_line,
                    snippet=c.text or "",
                    score=f.score,
                    rank=rank,
                    chunk_id=c.chunk_id,
                    channel_ranks=dict(f.channel_ranks),
                )
            )
        if len(hits) < k:
            notes.append(f"only {len(hits)} documents matched (k={k})")
        return hits

    def _memories(
        self, recipe: Recipe, top: list[RankedCard], links_by_card: dict[str, list[str]], corpus: Corpus
    ) -> list[MemoryHit]:
        if not top:
            return []
        details = self.memory.details([rc.card for rc in top])
        show_links = "memory_linked" in recipe.knowledge_channels
        if show_links:
            missing = [rc.card.memory_id for rc in top if rc.card.memory_id not in links_by_card]
            if missing:
                links_by_card = {**links_by_card, **self.memory.links(missing, corpus)}
        return [
            MemoryHit(
                memory_id=rc.card.memory_id,
                system=recipe.memory_system,
                text=details[rc.card.memory_id].text,
                source_turn_ids=list(details[rc.card.memory_id].source_turn_ids),
                score=rc.score,
                rank=rank,
                linked_doc_ids=list(links_by_card.get(rc.card.memory_id, [])) if show_links else [],
                channel_ranks=dict(rc.channel_ranks),
            )
            for rank, rc in enumerate(top, start=1)
        ]

def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0
