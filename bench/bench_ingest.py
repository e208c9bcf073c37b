"""Knowledge-base ingest: documents and chunks per second, time split into parse / embed / write, peak memory.

Usage: python bench/bench_ingest.py [PATH] [--limit N] [--cold] [--ray-workers N [--ray-address ADDR]]
       python bench/bench_ingest.py [PATH] [--limit N] --fake-embeddings [--latency-ms 50] [--concurrency 1,4,8]
  PATH     knowledge-base JSONL(.gz), default ../shared/data/kb/documents.jsonl.gz
  --cold   embed into a temporary cache (measures the encoder); default uses the machine cache
  --ray-workers N  embed the cache misses in N Ray actors (`ingest --executor ray`; run with the Ray environment's
                   python, $(scripts/setup_ray_env.sh)/bin/python); a local Ray instance unless --ray-address
  --fake-embeddings  the `openai:` encoder against a local fake endpoint: chunks/s per request concurrency
                     (bench/ingest_fake_embeddings.py; embedding phase only)
"""

from __future__ import annotations

import argparse
import gzip
import tempfile
import time
from pathlib import Path

from bench.neo4j_for_bench import bench_neo4j, peak_rss_mib
from graph.embeddings import EmbeddingCache, load_encoder
from graph.embeddings.cached import CachedEncoder
from graph.store import EventStore
from ingest.pipeline import load_input, write_events

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "kb" / "documents.jsonl.gz"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--limit", type=int, default=0, help="only the first N documents")
    parser.add_argument("--cold", action="store_true", help="use an empty embedding cache")
    parser.add_argument("--batch-size", type=int, default=2000)
    parser.add_argument("--fake-embeddings", action="store_true", help="openai: encoder vs a local fake endpoint")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="with --fake-embeddings: per request")
    parser.add_argument("--concurrency", default="1,2,4,8", help="with --fake-embeddings: comma-separated")
    parser.add_argument("--request-size", type=int, default=64, help="with --fake-embeddings: texts per request")
    parser.add_argument("--dim", type=int, default=384, help="with --fake-embeddings: vector size")
    parser.add_argument("--ray-workers", type=int, default=0, help="embed in N Ray actors (0: in this process)")
    parser.add_argument("--ray-address", default=None, help="with --ray-workers: the Ray cluster to join")
    args = parser.parse_args()
    path: Path = args.path
    with tempfile.TemporaryDirectory() as tmp:
        if args.limit:
            subset = Path(tmp) / "subset.jsonl"
            with gzip.open(path, "rt") if path.suffix == ".gz" else path.open() as src, subset.open("w") as out:
                for index, line in enumerate(src):
                    if index >= args.limit:
                        break
                    out.write(line)
            path = subset
        if args.fake_embeddings:
            from bench.ingest_fake_embeddings import run

            levels = [int(c) for c in str(args.concurrency).split(",") if c.strip()]
            run(path, latency_ms=args.latency_ms, concurrencies=levels, request_size=args.request_size, dim=args.dim)
            return
        cache = EmbeddingCache(Path(tmp) / "cold.sqlite") if args.cold else None
        encoder = load_encoder(cache=cache)
        ray_encoder = None
        if args.ray_workers:
            from graph.embeddings.ray_encoder import RayEncoder

            ray_encoder = RayEncoder(workers=args.ray_workers, address=args.ray_address)
            encoder = CachedEncoder(ray_encoder, encoder.cache)
        started = time.perf_counter()
        result = load_input(path, "kb")
        parse_s = time.perf_counter() - started
        with bench_neo4j() as (driver, pid):
            store = EventStore(driver, encoder=encoder)
            store.ensure_schema()
            report = write_events(store, result, batch_size=args.batch_size)
            jvm_peak = peak_rss_mib(pid)
        if ray_encoder is not None:
            ray_encoder.close()
        docs, chunks = result.counts["documents"], result.counts["chunks"]
        embed_s, write_s = report.seconds["embed"], report.seconds["write"]
        total = parse_s + embed_s + write_s
        stats = encoder.stats
        print(
            f"{path.name}: {docs:,} documents, {chunks:,} chunks, encoder {encoder.encoder_id} "
            f"({'cold cache' if args.cold else 'machine cache'}: {stats.misses:,} embedded, {stats.hits:,} hits)"
        )
        if ray_encoder is not None:
            shares = ", ".join(f"{n:,}" for n in ray_encoder.texts_per_actor)
            print(f"embedded by {args.ray_workers} Ray actor(s) ({shares} texts each; actor start-up included)")
        print(f"parse {parse_s:7.1f} s  ({docs / parse_s:,.0f} docs/s)")
        print(f"embed {embed_s:7.1f} s  ({stats.misses / embed_s if embed_s else 0:,.0f} chunks/s embedded)")
        events_rate = len(result.events) / write_s
        print(f"write {write_s:7.1f} s  ({chunks / write_s:,.0f} chunks/s, {events_rate:,.0f} events/s)")
        print(
            f"total {total:7.1f} s  ({docs / total:,.1f} docs/s, {chunks / total:,.1f} chunks/s); "
            f"Neo4j writes {100 * write_s / total:.1f}% of ingest time"
        )
        print(f"peak RSS: python {peak_rss_mib():.0f} MiB, Neo4j JVM {jvm_peak:.0f} MiB")


if __name__ == "__main__":
    main()
