"""Kill -9 drill for the synthesis pipeline: SIGKILL `synth all` at random points, resume it, and compare the
event log with an uninterrupted synthesis of the same settings.

    PYTHONPATH=. python bench/drill_synth_kill.py [--kills 8] [--seed 5] [--profiles 2] [--latency-ms 40]

A throwaway Neo4j on a free port holding the bundled sample (the KB), and the fake OpenAI server playing the
synthesis roles (tests/fake_openai/synthesis_script.py), response cache off so every redone unit reaches the
endpoint again. Each kill lands at a random 10-80% of the uninterrupted command's time, or 0-1.5 s after the
killed command appended its first events. Compared: the (type, key) multiset of the log (timings excluded),
duplicate and missing events, open units (a session, item or profile without its final draft), the chain
check and `graph rebuild --check`. `SynthesisStageFinished` records one per stage invocation (killed
invocations that finished a stage add their own), so it is counted apart.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.drill_common import DrillEnv, LogFacts, cli, cli_killed_after, drill_env, log_facts, wipe
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.synthesis_script import SynthesisPolicy

SAMPLE = str(Path(__file__).resolve().parent.parent / "samples" / "colabench-sample")
PER_INVOCATION = "SynthesisStageFinished"


def comparable(facts: LogFacts) -> Counter[tuple[str, str]]:
    return Counter({key: n for key, n in facts.keys.items() if key[0] != PER_INVOCATION})


def open_units(env: DrillEnv, dataset: str) -> int:
    """Sessions and items of the dataset whose unit has no final draft (a half-written unit)."""
    with env.driver.session() as session:
        record = session.run(
            "MATCH (p:Profile {dataset: $d})-[:HAS_SESSION]->(s:Session) "
            "WHERE NOT EXISTS { MATCH (x:SynthesisDraft {stage: 'dialogue', subject: s.topic_id}) WHERE x.final } "
            "RETURN count(s) AS n",
            d=dataset,
        ).single()
    return int(record["n"]) if record else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=8)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--profiles", type=int, default=2)
    parser.add_argument("--latency-ms", type=float, default=40.0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    dataset = "drill-synth"
    synth = [
        "synth",
        "all",
        "--dataset",
        dataset,
        "--profiles",
        str(args.profiles),
        "--seed-docs",
        "2",
        "--topics",
        "2",
        "--turns",
        "2",
    ]
    with FakeOpenAI(SynthesisPolicy(), latency_s=args.latency_ms / 1000) as fake:
        llm = {
            "COLABENCH_LLM_SYNTHESIS_BASE_URL": fake.base_url,
            "COLABENCH_LLM_SYNTHESIS_MODEL": "fake",
            "COLABENCH_LLM_CACHE_MODE": "off",
        }
        with drill_env(**llm) as env:
            wipe(env.driver)
            if cli(["ingest", SAMPLE], env.env).returncode != 0:
                raise SystemExit("ingest of the sample failed")
            started = time.perf_counter()
            done = cli(synth, env.env)
            seconds = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"reference synth failed: {done.stderr[-2000:]}")
            reference = log_facts(env.store())
            requests_reference = fake.request_count
            print(f"reference synth all: {seconds:.1f} s, {reference.events:,} events, {requests_reference} requests")
            wipe(env.driver)
            cli(["ingest", SAMPLE], env.env)
            landed = mid_write = 0
            for k in range(args.kills):
                delay = rng.uniform(0.1, 0.8) * seconds
                before = env.store().head().seq
                killed = cli_killed_after(
                    synth,
                    env.env,
                    delay,
                    grew=lambda b=before: env.store().head().seq > b,
                    jitter_s=rng.uniform(0, 1.5),
                )
                wrote = env.store().head().seq > before
                landed += killed
                mid_write += killed and wrote
                print(
                    f"kill {k + 1}/{args.kills} at {delay:.1f} s: {'killed' if killed else 'had finished'}"
                    f"{' (after it appended events)' if killed and wrote else ''}; open units now "
                    f"{open_units(env, dataset)}",
                    flush=True,
                )
            done = cli(synth, env.env)
            if done.returncode != 0:
                raise SystemExit(f"resumed synth failed: {done.stderr[-2000:]}")
            drilled = log_facts(env.store())
            rebuild = cli(["graph", "rebuild", "--check"], env.env)
            exported = cli(["synth", "export", "--dataset", dataset, "--out", str(env.home / "bundle")], env.env)
    ref, got = comparable(reference), comparable(drilled)
    duplicates = sum(max(0, n - ref.get(key, 0)) for key, n in got.items())
    missing = sum(max(0, n - got.get(key, 0)) for key, n in ref.items())
    print("\n== synthesis kill -9 drill ==")
    print(f"kills: {landed} of {args.kills} landed mid-command, {mid_write} after events were appended")
    print(
        f"events (without {PER_INVOCATION}): reference {sum(ref.values()):,}, drilled {sum(got.values()):,}; "
        f"duplicates {duplicates}, missing {missing}; {'identical' if ref == got else 'DIFFERENT'}"
    )
    print(
        f"{PER_INVOCATION}: reference {reference.by_type.get(PER_INVOCATION, 0)}, drilled "
        f"{drilled.by_type.get(PER_INVOCATION, 0)} (one per stage invocation)"
    )
    print(
        f"endpoint requests: reference {requests_reference}, drilled (all kills and resumes) "
        f"{fake.request_count - requests_reference}"
    )
    print(
        f"chain: {'verifies' if drilled.chain_ok else 'BROKEN'}; graph rebuild --check: exit {rebuild.returncode}; "
        f"synth export (check): exit {exported.returncode}"
    )
    sys.exit(0 if ref == got and drilled.chain_ok and rebuild.returncode == 0 and exported.returncode == 0 else 1)


if __name__ == "__main__":
    main()
