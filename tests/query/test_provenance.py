"""Every id a search returns resolves in the graph: a walk over all recipes and three item questions of
each profile of the bundled sample (documents with their chunk and line range, memories with their
DERIVED_FROM turns and their links)."""

from __future__ import annotations

import pytest

from agents.memory.cards import build_document_links, build_raw_turn_cards
from graph.store import EventStore
from query.recipes import RECIPES
from query.retriever import Retriever

pytestmark = pytest.mark.neo4j

# The recipes this module's raw-turn cards serve (the LLM-built systems prove their provenance in test_memory_*).
RAW_OR_NONE = [n for n, r in RECIPES.items() if not r.needs_profile or r.memory_system == "raw_turns"]


@pytest.fixture(scope="module")
def sample(sample_store: EventStore, encoder):  # type: ignore[no-untyped-def]
    retriever = Retriever(sample_store.driver, encoder)
    build_raw_turn_cards(sample_store)
    build_document_links(sample_store, retriever)
    with sample_store.driver.session() as session:
        rows = session.run("MATCH (i:Item) RETURN i.question AS q, i.profile_id AS p ORDER BY i.id")
        items = [(r["q"], r["p"]) for r in rows]
    yield sample_store, retriever, items
    retriever.close()


def test_every_returned_id_resolves_for_every_recipe_and_item(sample) -> None:  # type: ignore[no-untyped-def]
    store, retriever, all_items = sample
    assert len(all_items) == 28
    # Three questions of each profile keep the walk short; every recipe runs on each.
    items = [item for p in sorted({p for _, p in all_items}) for item in [i for i in all_items if i[1] == p][:3]]
    checked = {"documents": 0, "memories": 0, "links": 0}
    with store.driver.session() as session:
        for question, profile in items:
            for name in RAW_OR_NONE:
                result = retriever.search(name, question, profile_id=profile, k=5)
                for hit in result.documents:
                    row = session.run(
                        "MATCH (d:Document {id: $d})-[:HAS_CHUNK]->(c:Chunk {id: $c}) "
                        "RETURN c.start_line AS s, c.end_line AS e, c.text AS t, d.n_lines AS n",
                        d=hit.doc_id,
                        c=hit.chunk_id,
                    ).single()
                    assert row is not None, f"{name}: {hit.doc_id}/{hit.chunk_id} does not resolve"
                    assert (row["s"], row["e"], row["t"]) == (hit.start_line, hit.end_line, hit.snippet)
                    assert hit.end_line <= row["n"]
                    checked["documents"] += 1
                for mem in result.memories:
                    turns = session.run(
                        "MATCH (:Profile {id: $p})-[:HAS_MEMORY]->(:Memory {id: $m})-[:DERIVED_FROM]->(t:Turn) "
                        "RETURN collect(t.id) AS ids",
                        p=profile,
                        m=mem.memory_id,
                    ).single()["ids"]
                    assert turns and sorted(turns) == sorted(mem.source_turn_ids)
                    checked["memories"] += 1
                    if mem.linked_doc_ids:
                        linked = session.run(
                            "MATCH (:Memory {id: $m})-[:LINKS_TO]->(d:Document) RETURN collect(d.id) AS ids",
                            m=mem.memory_id,
                        ).single()["ids"]
                        assert set(mem.linked_doc_ids) <= set(linked)
                        checked["links"] += len(mem.linked_doc_ids)
    assert checked["documents"] == len(items) * 4 * 5 and checked["memories"] > 0 and checked["links"] > 0
