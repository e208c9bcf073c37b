"""Mem0's search on the graph store against Mem0's search on its own local Qdrant (prints figures).

The same memories go through Mem0 2.0.20 twice: once with Mem0's real `qdrant` provider (qdrant-client in
embedded mode, a collection under a temporary path) and once with the project's graph vector store
(agents/memory/mem0/vector_store.py, memories as `Memory {system: 'mem0'}` nodes of a throwaway Neo4j). Both
use the project's encoder as Mem0's embedder. The memories are every public message of the bundle's profiles
plus `--sentences` sentences per profile drawn from the bundle's document chunks (so each profile has a pool
large enough for the top 10 to be contested; a benchmark device, attached to the profile's pairs in turn),
written with `Memory.add(..., infer=False)` (one memory per message, no LLM), pair by pair; on the graph the
writes of each pair become its `MemoryWritten` events, as a build appends them.

Then `Memory.search(query, top_k=10, filters={"user_id": profile}, explain=True)` runs on both for the same
queries (item questions and user-turn texts of the bundle, cycled over the profiles). A memory is matched
across the stores by a `bench_key` in its metadata (Mem0 gives the two stores different ids). Printed:
- the share of queries with the same top 10 in the same order (goal >= 95 %), and with the same top 10 once
  memories of identical text (exact ties, whose order no store fixes) are taken as one;
- the largest difference between the two stores' scores of the same memory (goal <= 1e-6);
- which signals Mem0 scored on each store (the `max_possible_score` of its explain output: 1.0 = semantic
  only) and what Qdrant's own `keyword_search` returned.

    python bench/bench_mem0_store_parity.py [--queries 200] [--sentences 150] [--bundle samples/colabench-sample]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from agents.history import load_public_history  # noqa: E402
from agents.memory.pairs import HistoryPair, history_pairs  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.events import NewEvent  # noqa: E402
from graph.store import EventStore  # noqa: E402
from ingest.pipeline import load_input, write_events  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"
TOP_K = 10
GOAL_SAME_TOP = 0.95
GOAL_SCORE_DIFF = 1e-6


def pair_metadata(pair: HistoryPair, bench_key: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {"source_turn_ids": pair.turn_ids, "pair_id": pair.pair_id, "bench_key": bench_key}
    if pair.at:
        metadata["created_at"] = pair.at
    return metadata


def document_sentences(store: EventStore) -> list[str]:
    """Distinct sentences (40-300 characters) of the bundle's document chunks, in a fixed order."""
    with store.driver.session(database=store.database) as session:
        texts = [r["t"] for r in session.run("MATCH (c:Chunk) RETURN c.text AS t ORDER BY c.id")]
    found = (s.strip() for t in texts for s in re.split(r"(?<=[.!?])\s+", " ".join(t.split())))
    return list(dict.fromkeys(s for s in found if 40 <= len(s) <= 300))


def memories_by_pair(
    pairs: list[HistoryPair], extra: list[str]
) -> list[tuple[HistoryPair, list[tuple[str, dict[str, str]]]]]:
    """(pair, [(bench_key, message)]): the pair's messages, then the extra sentences dealt over the pairs."""
    out: list[tuple[HistoryPair, list[tuple[str, dict[str, str]]]]] = []
    for pair in pairs:
        out.append((pair, [(f"{pair.pair_id}|{i}", m) for i, m in enumerate(pair.messages())]))
    if out:
        seen = {m["content"] for _, ms in out for _, m in ms}
        for i, text in enumerate(t for t in extra if t not in seen):
            pair, messages = out[i % len(out)]
            messages.append((f"{pair.pair_id}|doc{i}", {"role": "user", "content": text}))
    return out


def add_to_both(store: EventStore, graph: Any, qdrant: Any, profile_id: str, pair: HistoryPair,
                messages: list[tuple[str, dict[str, str]]]) -> int:
    """One pair's memories through Mem0 on Qdrant and on the graph store (appended as MemoryWritten events)."""
    with graph.store.pair_scope(profile_id, pair) as scope:
        for bench_key, message in messages:
            metadata = pair_metadata(pair, bench_key)
            qdrant.add([message], user_id=profile_id, metadata=metadata, infer=False)
            graph.memory.add([message], user_id=profile_id, metadata=metadata, infer=False)
        writes = scope.writes()
    store.append([NewEvent(w, "bench:mem0-parity", pair.at) for w in writes])
    return len(writes)


def queries(store: EventStore, profiles: list[str], n: int) -> list[tuple[str, str]]:
    """(profile, query): item questions and user-turn texts of each profile, shuffled, cycled, `n` in all."""
    pools: dict[str, list[str]] = {}
    with store.driver.session(database=store.database) as session:
        for p in profiles:
            rows = session.run("MATCH (i:Item {profile_id: $p}) RETURN i.question AS q ORDER BY i.id", p=p)
            pools[p] = [r["q"] for r in rows]
            turns = load_public_history(store.driver, store.database, p)
            pools[p] += [t.text[:300] for t in turns if t.role == "user" and t.text.strip()]
    rng = random.Random(11)
    for pool in pools.values():
        rng.shuffle(pool)
    out = []
    for i in range(n):
        pool = pools[profiles[i % len(profiles)]]
        out.append((profiles[i % len(profiles)], pool[(i // len(profiles)) % len(pool)]))
    return out


def key(hit: dict[str, Any]) -> str:
    """A memory across the two stores (Mem0 gives each store its own ids)."""
    return str((hit.get("metadata") or {}).get("bench_key"))


def tie_classes(hits: list[dict[str, Any]]) -> list[str]:
    """The texts in rank order: memories of the same text (exact score ties) become one class."""
    return [str(h["memory"]) for h in hits]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sentences", type=int, default=150, help="document sentences added per profile")
    parser.add_argument("--bundle", type=Path, default=SAMPLE)
    args = parser.parse_args()
    encoder = load_encoder()
    with bench_neo4j() as (driver, _pid), tempfile.TemporaryDirectory(prefix="colabench-bench-mem0-") as tmp:
        os.environ["COLABENCH_DATA_DIR"] = str(Path(tmp) / "data")
        from agents.memory.mem0.qdrant_reference import open_qdrant_mem0
        from agents.memory.mem0.sdk import installed_version, open_mem0

        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        write_events(store, load_input(args.bundle))
        with driver.session() as session:
            profiles = [r["id"] for r in session.run("MATCH (p:Profile) RETURN p.id AS id ORDER BY id")]
        graph = open_mem0(store, None)
        qdrant = open_qdrant_mem0(Path(tmp) / "qdrant", encoder)
        sentences = document_sentences(store)
        rng = random.Random(5)
        n_memories = 0
        for profile_id in profiles:
            pairs = [p for p in history_pairs(load_public_history(driver, store.database, profile_id)) if p.messages()]
            extra = rng.sample(sentences, min(args.sentences, len(sentences)))
            for pair, messages in memories_by_pair(pairs, extra):
                n_memories += add_to_both(store, graph, qdrant, profile_id, pair, messages)
        print(f"mem0ai {installed_version()}; {len(profiles)} profiles, {n_memories} memories on each store "
              f"(public messages + up to {args.sentences} document sentences per profile, infer=False); encoder "
              f"{encoder.encoder_id}")
        print(f"Qdrant store: {type(qdrant.vector_store).__module__}.{type(qdrant.vector_store).__name__}, "
              f"keyword_search('knee pain') -> "
              f"{qdrant.vector_store.keyword_search('knee pain', top_k=5, filters={'user_id': profiles[0]})!r}")
        print(f"graph store:  keyword_search -> {graph.store.keyword_search('knee pain')!r}; deviations recorded: "
              f"{graph.signals.deviations()}")

        work = queries(store, profiles, args.queries)
        same_ids = same_texts = 0
        max_diff = 0.0
        compared = 0
        divisors: dict[str, Counter[float]] = {"qdrant": Counter(), "graph": Counter()}
        first_miss: tuple[str, list[Any], list[Any]] | None = None
        for profile_id, q in work:
            found = {}
            for name, memory in (("qdrant", qdrant), ("graph", graph.memory)):
                hits = memory.search(q, top_k=TOP_K, filters={"user_id": profile_id}, explain=True)["results"]
                found[name] = hits
                divisors[name].update(h["score_details"]["max_possible_score"] for h in hits)
            ours, theirs = found["graph"], found["qdrant"]
            if [key(h) for h in ours] == [key(h) for h in theirs]:
                same_ids += 1
            elif first_miss is None:
                first_miss = (q, [(key(h), round(h["score"], 7)) for h in theirs[:3]],
                              [(key(h), round(h["score"], 7)) for h in ours[:3]])
            same_texts += tie_classes(ours) == tie_classes(theirs)
            theirs_by_key = {key(h): float(h["score"]) for h in theirs}
            for h in ours:
                if key(h) in theirs_by_key:
                    max_diff = max(max_diff, abs(float(h["score"]) - theirs_by_key[key(h)]))
                    compared += 1
        n = len(work)
        print(f"\n== {n} queries, Memory.search top_k={TOP_K} (threshold 0.1), graph store vs Mem0's local Qdrant")
        print(f"  same top {TOP_K}, same order, by memory: {same_ids}/{n} ({100 * same_ids / n:.1f}%)")
        print(f"  same top {TOP_K}, exact ties of identical text as one: {same_texts}/{n} "
              f"({100 * same_texts / n:.1f}%)")
        print(f"  max |score difference| over {compared} memories in both lists: {max_diff:.2e}")
        for name, counts in divisors.items():
            shown = ", ".join(f"{d:g}: {c}" for d, c in sorted(counts.items()))
            print(f"  {name:6} Mem0 max_possible_score per hit ({shown}; 1 = semantic only)")
        if first_miss is not None:
            print(f"  first differing query {first_miss[0][:80]!r}: qdrant {first_miss[1]} graph {first_miss[2]}")
        print("\n== goals")
        share = same_ids / n
        print(f"  same top {TOP_K} on {100 * share:.1f}% of queries (goal >= {100 * GOAL_SAME_TOP:.0f}%: "
              f"{'meets' if share >= GOAL_SAME_TOP else 'misses'})")
        print(f"  max score difference {max_diff:.2e} (goal <= {GOAL_SCORE_DIFF:g}: "
              f"{'meets' if max_diff <= GOAL_SCORE_DIFF else 'misses'})")
        print(f"  load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")
        qdrant.close()
        graph.close()


if __name__ == "__main__":
    main()
