"""What the event-write path records, for comparing two versions of it on the same inputs (prints JSON).

Runs `eval qa --system raw_turns` (3 judge runs) on the shipped LoCoMo fixture against the instant fake endpoint
on a throwaway Neo4j (or the COLABENCH_BENCH_NEO4J_URI server, wiped), then prints: the events per type; a digest
of every event's seq, type and payload, with the fields that hold wall-clock timings masked (QaAnswered
`reader_ms` and `details.search_ms`, which differ from run to run); whether the hash chain verifies; the
projection's fingerprint (digest, node and relationship counts per label and type) as written live; and the
fingerprint after dropping the projection and replaying the log. Two versions of the write path record the same
when their event digests and counts agree, and each one's live and replayed fingerprints agree.

`--replay-only` (with COLABENCH_BENCH_NEO4J_URI) runs nothing and wipes nothing: it replays the log already in
that database and prints the fingerprint, so a log written by one version can be projected by another (copy
this file into that version's tree and run it there).

    python bench/qa_write_parity.py [--replay-only]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.fingerprint import compute_fingerprint  # noqa: E402
from graph.hashing import canonical_json  # noqa: E402
from graph.integrity import verify_chain  # noqa: E402
from graph.replay import drop_projection, replay  # noqa: E402
from graph.store import EventStore  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "locomo" / "locomo_mini.json"
MASKED = "<timing>"


def masked(event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with its wall-clock timings replaced by a marker."""
    if event_type != "QaAnswered":
        return payload
    out = dict(payload)
    if "reader_ms" in out:
        out["reader_ms"] = MASKED
    details = dict(out.get("details") or {})
    if "search_ms" in details:
        details["search_ms"] = MASKED
        out["details"] = details
    return out


def replayed(store: EventStore) -> dict[str, Any]:
    drop_projection(store)
    replay(store)
    return asdict(compute_fingerprint(store.driver))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replay-only", action="store_true")
    args = parser.parse_args()
    encoder = load_encoder()
    with bench_neo4j(heap="1g", pagecache_mib=256, keep=args.replay_only) as (driver, _):
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        if args.replay_only:
            print(json.dumps({"replayed": replayed(store)}, indent=1, sort_keys=True))
            return
        from bench.bench_eval_qa import memory_pass
        from tests.fake_openai import FakeOpenAI
        from tests.fake_openai.amem_script import AmemScript
        from tests.fake_openai.memory_systems_qa_script import MemorySystemsQaScript

        with FakeOpenAI(MemorySystemsQaScript(fallback=AmemScript())) as fake:
            memory_pass(store, fake, FIXTURE, "raw_turns", 3)
        events = list(store.read())
        digest = hashlib.sha256()
        for e in events:
            digest.update(canonical_json([e.seq, e.type, masked(e.type, e.payload)]).encode() + b"\n")
        report = {
            "events": len(events),
            "events_by_type": store.count_by_type(),
            "event_digest_timings_masked": digest.hexdigest(),
            "chain_verifies": verify_chain(events, expected_head=store.head().hash).ok,
            "live": asdict(compute_fingerprint(driver)),
        }
        report["replayed"] = replayed(store)
        report["live_equals_replayed"] = report["live"] == report["replayed"]
        print(json.dumps(report, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
