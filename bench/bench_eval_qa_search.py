"""`eval qa --system`: each memory system's search as the QA line runs it, beside the system's SDK's own search,
in one run, on the same LoCoMo questions at the system's QA k (prints figures).

The QA line searches with the system's `search_recipe` through the Retriever (`Retriever.search_memories`, what
`agents/qa/memory_systems.py` times per question): for Mem0 that is the project's cosine over the profile's
`Memory {system: 'mem0'}` nodes (the graph store's search), for Graphiti Graphiti's own hybrid search opened for
the command (`sdk_rankers`) plus the lookup of its facts' Memory nodes and source turns. The SDK's own search is
the system's `sdk_search`: Mem0's `Memory.search()` (which runs on the graph store, `agents/memory/mem0/`),
Graphiti's `Graphiti.search`. raw_turns has no SDK (it is colabench's own baseline): its row says so.

Setup: a throwaway Neo4j (bench/neo4j_for_bench.py; or COLABENCH_BENCH_NEO4J_URI, which is wiped), the LoCoMo
slice (tests/fixtures/locomo/locomo_mini.json, or `--conversations N` of the shared locomo10), memories built
against the instant fake OpenAI server (tests/fake_openai AutoPolicy: Mem0's extraction and Graphiti's prompts),
the response cache off. Then every question of the slice is searched `--rounds` times by every path, warm
(each path saw every question once before timing), in an order that rotates per query so machine load hits
all paths alike; query embedding is included in every path that embeds. Printed per path: n, p50, p95, mean
(ms), and how often the two paths of a system return the same top k (or the SDK's shorter list as a prefix).

    python bench/bench_eval_qa_search.py [--systems raw_turns,mem0,graphiti] [--rounds 25] [--conversations N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from agents.llm.roles import LLMRoles  # noqa: E402
from agents.memory.prepare import build_profiles, open_memory_system  # noqa: E402
from agents.memory.rankers import sdk_rankers  # noqa: E402
from agents.memory.registry import get_memory_system  # noqa: E402
from agents.qa.history import load_questions  # noqa: E402
from agents.qa.memory_systems import resolve_k  # noqa: E402
from agents.retrieval_eval.datasets import prepare_dataset  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from query.retriever import Retriever  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402
from tests.fake_openai.memory_systems_qa_script import MemorySystemsQaScript  # noqa: E402
from tests.fake_openai.policy import AutoPolicy  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "locomo" / "locomo_mini.json"
LOCOMO = REPO.parent / "shared" / "data" / "locomo" / "locomo10.json"


def dataset(conversations: int | None) -> Path:
    if not conversations or not LOCOMO.exists():
        return FIXTURE
    path = Path(tempfile.mkdtemp()) / f"locomo{conversations}.json"
    path.write_text(json.dumps(json.loads(LOCOMO.read_text(encoding="utf-8"))[:conversations]), encoding="utf-8")
    return path


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q * len(ordered) + 0.5) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", default="raw_turns,mem0,graphiti")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--conversations", type=int, default=None)
    args = parser.parse_args()
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    path = dataset(args.conversations)
    encoder = load_encoder()
    with (
        bench_neo4j(heap="1g", pagecache_mib=256) as (driver, _pid),
        tempfile.TemporaryDirectory(prefix="colabench-bench-qa-search-") as tmp,
        FakeOpenAI(MemorySystemsQaScript(fallback=AutoPolicy())) as fake,
    ):
        os.environ["COLABENCH_DATA_DIR"] = str(Path(tmp) / "data")
        address = driver.get_server_info().address  # Graphiti opens its own connection from the settings
        os.environ["NEO4J_URI"] = f"bolt://{address[0]}:{address[1]}"
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        prepared = prepare_dataset(store, "locomo", path)
        questions = load_questions(store, [i.item_id for i in prepared.items])
        profiles = sorted({q.profile_id for q in questions})
        retriever = Retriever(driver, encoder, store.database)
        settings = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 60.0}
        roles = LLMRoles(overrides={"memory": settings}, cache_mode="off")
        llm = roles.client("memory")
        print(f"{path.name}: {len(questions)} questions over {len(profiles)} conversation(s); instant fake endpoint; "
              f"load average {os.getloadavg()[0]:.2f} (2 cores)")
        for system in systems:
            started = time.perf_counter()
            reports = build_profiles(system, store, retriever, profiles, llm=llm if get_memory_system(system).needs_llm
                                     else None)  # fmt: skip
            print(f"  built {system}: {sum(r.pairs_built for r in reports)} pair(s), "
                  f"{sum(r.memories_added for r in reports)} memories in {time.perf_counter() - started:.1f} s")
        work = [(q.profile_id, q.question) for q in questions]
        paths: dict[str, Callable[[str, str], list[str]]] = {}
        pairs: list[tuple[str, str, str, int]] = []  # (system, QA path, SDK path, k)
        no_sdk: list[str] = []
        instances: dict[str, Any] = {}
        with sdk_rankers(store, systems):
            try:
                for system in systems:
                    cls = get_memory_system(system)
                    k = resolve_k(system, None)[0]
                    qa_name = f"{system}: QA search ({cls.search_recipe}, k={k})"
                    paths[qa_name] = lambda p, q, r=cls.search_recipe, k=k: [
                        m.memory_id for m in retriever.search_memories(r, q, profile_id=p, k=k).memories
                    ]
                    instance = open_memory_system(system, store, retriever, llm if cls.needs_llm else None)
                    instances[system] = instance
                    try:
                        instance.sdk_search(*work[0], k)
                    except NotImplementedError:
                        no_sdk.append(system)
                        continue
                    sdk_name = f"{system}: SDK's own search (k={k})"
                    paths[sdk_name] = lambda p, q, i=instance, k=k: list(i.sdk_search(p, q, k))
                    pairs.append((system, qa_name, sdk_name, k))
                for fn in paths.values():  # warm: every path sees every question once
                    for p, q in work:
                        fn(p, q)
                times: dict[str, list[float]] = {name: [] for name in paths}
                names = list(paths)
                n = 0
                for _ in range(args.rounds):
                    for p, q in work:
                        for name in names[n % len(names) :] + names[: n % len(names)]:
                            t0 = time.perf_counter()
                            paths[name](p, q)
                            times[name].append((time.perf_counter() - t0) * 1000)
                        n += 1
                same: dict[str, tuple[int, int]] = {}
                for system, a, b, _ in pairs:
                    lists = [(paths[a](p, q), paths[b](p, q)) for p, q in work]
                    # the SDK may return fewer (Mem0 drops hits under its 0.1 score threshold): then its list must
                    # be a prefix of the QA search's
                    same[system] = (sum(ours == theirs for ours, theirs in lists),
                                    sum(ours[: len(theirs)] == theirs for ours, theirs in lists))  # fmt: skip
            finally:
                for instance in instances.values():
                    instance.close()
        roles.close()
        print(f"\n== search latency, warm, {args.rounds} rounds x {len(work)} questions per path (ms); load average "
              f"{os.getloadavg()[0]:.2f}")
        print(f"{'path':52} {'n':>5} {'p50':>8} {'p95':>8} {'mean':>8}")
        for name, ms in times.items():
            print(f"{name:52} {len(ms):>5} {statistics.median(ms):8.2f} {nearest_rank(ms, 0.95):8.2f} "
                  f"{statistics.mean(ms):8.2f}")
        for system in no_sdk:
            print(f"{system + ': SDK search':52} {'-':>5} {'n/a: no SDK (colabench own baseline)':>26}")
        print("\n== side by side (p50, ms)")
        for system, a, b, k in pairs:
            qa, sdk = statistics.median(times[a]), statistics.median(times[b])
            print(f"  {system}: QA search {qa:.2f} vs SDK {sdk:.2f} (ratio {qa / sdk:.2f}); identical top {k} on "
                  f"{same[system][0]}/{len(work)} questions, the SDK's list a prefix of the QA search's on "
                  f"{same[system][1]}/{len(work)}")


if __name__ == "__main__":
    main()
