"""Shared plumbing of the process drills (kill -9, LLM faults): a throwaway Neo4j, the CLI as a subprocess
with an isolated config and data folder, and a log fingerprint that ignores timings."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neo4j import Driver

from graph.connection import open_driver
from graph.cypher_files import load_cypher
from graph.events import EVENT_TYPES
from graph.integrity import verify_chain
from graph.server import LocalNeo4jServer, free_port
from graph.settings import Neo4jSettings
from graph.store import EventStore

REPO = Path(__file__).resolve().parent.parent


@dataclass
class DrillEnv:
    driver: Driver
    env: dict[str, str]
    home: Path
    neo4j: LocalNeo4jServer

    def store(self) -> EventStore:
        return EventStore(self.driver)


@contextmanager
def drill_env(**extra: str) -> Iterator[DrillEnv]:
    """A fresh Neo4j on a free port and the environment a CLI subprocess needs to use it."""
    with tempfile.TemporaryDirectory(prefix="colabench-drill-") as home:
        settings = Neo4jSettings(local_port=free_port(), heap="1g", pagecache_mib=256)
        server = LocalNeo4jServer(settings, home=Path(home) / "neo4j")  # kept so a drill can kill and restart it
        server.start(timeout_s=240)
        config = Path(home) / "empty.toml"
        config.write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("COLABENCH_LLM_", "NEO4J_"))}
        env.update(
            PYTHONPATH=str(REPO),
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            COLABENCH_CONFIG=str(config),
            COLABENCH_DATA_DIR=str(Path(home) / "data"),
            NEO4J_URI=settings.effective_uri,
            **extra,
        )
        try:
            driver = open_driver(settings)
            try:
                yield DrillEnv(driver, env, Path(home), server)
            finally:
                driver.close()
        finally:
            server.stop()


def cli(args: list[str], env: dict[str, str], timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout
    )


def cli_killed_after(
    args: list[str], env: dict[str, str], delay_s: float, grew: Callable[[], bool] | None = None, jitter_s: float = 0.0
) -> bool:
    """Start the CLI and SIGKILL its process group after `delay_s`, or `jitter_s` after `grew()` first says the
    log grew (so the kill lands while the command is writing); False when it ended before the kill."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", *args],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + delay_s
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            if grew is not None and grew():
                deadline = min(deadline, time.monotonic() + jitter_s)
                grew = None
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    process.wait(timeout=60)
    return True


@dataclass(frozen=True)
class Neo4jKill:
    """What a SIGKILL of Neo4j under a running CLI command did to the command."""

    landed: bool  # Neo4j was killed while the command ran
    returncode: int
    stderr_tail: str  # the command's last stderr lines (its message to the user)
    traceback: bool  # the command printed a Python traceback instead of one message
    restart_s: float  # seconds to start Neo4j again on the same data


def neo4j_killed_after(
    args: list[str],
    env: DrillEnv,
    delay_s: float,
    grew: Callable[[], bool] | None = None,
    jitter_s: float = 0.0,
    exit_timeout_s: float = 300,
) -> Neo4jKill:
    """Start the CLI, SIGKILL the Neo4j server process after `delay_s` (or `jitter_s` after `grew()` first says the
    log grew), wait for the command to give up, then start Neo4j again on the same data."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", *args],
        env=env.env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + delay_s
    landed = False
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if grew is not None and grew():
                deadline = min(deadline, time.monotonic() + jitter_s)
                grew = None
            time.sleep(0.05)
        if process.poll() is None:
            pid = env.neo4j.status().pid
            if pid is None:
                raise SystemExit("drill: the local Neo4j has no pid to kill")
            os.kill(pid, signal.SIGKILL)
            landed = True
        _out, err = process.communicate(timeout=exit_timeout_s)
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    restart_s = 0.0
    if landed:
        deadline = time.monotonic() + 60
        while env.neo4j.status().running and time.monotonic() < deadline:  # the killed JVM may take a moment
            time.sleep(0.2)
        started = time.perf_counter()
        env.neo4j.start(timeout_s=300)
        restart_s = time.perf_counter() - started
    tail = "\n".join((err or "").strip().splitlines()[-3:])
    return Neo4jKill(landed, process.returncode, tail, "Traceback (most recent call last)" in (err or ""), restart_s)


def wipe(driver: Driver) -> None:
    with driver.session() as session:
        session.run(load_cypher("admin/delete_everything")).consume()


@dataclass(frozen=True)
class LogFacts:
    events: int
    by_type: dict[str, int]
    keys: Counter[tuple[str, str]]  # (type, key) -> how many events carry it
    content_ids: set[str]
    chain_ok: bool
    chain_problem: str | None

    def fingerprint(self) -> str:
        """A hash over the (type, key) multiset: what exists, not when or how fast it was written."""
        body = json.dumps(sorted([t, k, n] for (t, k), n in self.keys.items()))
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    def duplicates_against(self, reference: LogFacts) -> int:
        """Events beyond the reference's count for the same (type, key): repeated work after a resume."""
        return sum(max(0, n - reference.keys.get(key, 0)) for key, n in self.keys.items())

    def missing_against(self, reference: LogFacts) -> int:
        return sum(max(0, n - self.keys.get(key, 0)) for key, n in reference.keys.items())


def _key(event_type: str, payload: dict[str, Any], event_id: str) -> str:
    cls = EVENT_TYPES.get(event_type)
    fields = getattr(cls, "KEY", ()) if cls is not None else ()
    if fields and all(f in payload for f in fields):
        return "|".join(str(payload[f]) for f in fields)
    # No declared key: the payload without volatile numbers (timings, token counts) names the fact.
    stable = {k: v for k, v in payload.items() if not isinstance(v, float) and k not in _VOLATILE}
    return hashlib.sha256(json.dumps(stable, sort_keys=True, default=str).encode()).hexdigest()[:16]


_VOLATILE = {"seconds", "ms", "latency_ms", "started_at", "finished_at", "usage", "timings", "measured", "at"}


class RandomIds:
    """Graphiti names its fact edges with random uuid4s (graphiti-core's own), so two builds of the same history
    give the same facts other ids (`graphiti:<uuid>`). The comparisons name each such fact by what it is: its
    profile, its first text and its source turns (and, for repeats, its rank in the log), in every string of
    the log and the graph. Every other system's ids are reproducible and are compared as they are."""

    PATTERN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

    def __init__(self, events: list[Any]) -> None:
        self.names: dict[str, str] = {}
        seen: Counter[str] = Counter()
        for event in events:
            payload = event.payload
            if event.type != "MemoryWritten" or payload.get("system") != "graphiti":
                continue
            uuid = str(payload["memory_id"]).split(":", 1)[-1]
            if uuid in self.names or not self.PATTERN.fullmatch(uuid):
                continue
            sources = sorted(payload.get("source_turn_ids") or [])
            what = json.dumps([payload.get("profile_id"), payload.get("text"), sources])
            digest = hashlib.sha256(what.encode()).hexdigest()[:12]
            seen[digest] += 1
            self.names[uuid] = f"fact-{digest}-{seen[digest]}"

    def rename(self, value: Any) -> Any:
        if not self.names:
            return value
        if isinstance(value, str):
            return self.PATTERN.sub(lambda m: self.names.get(m.group(0), m.group(0)), value)
        if isinstance(value, list):
            return [self.rename(v) for v in value]
        if isinstance(value, dict):
            return {k: self.rename(v) for k, v in value.items()}
        return value


def graphiti_memory_ids(store: EventStore) -> set[str]:
    """The Graphiti memory ids of the log as they are (no renaming): since graphiti-core's ids are derived from
    profile, pair and position, an uninterrupted and a resumed build must give the very same ones."""
    return {
        str(e.payload["memory_id"])
        for e in store.read()
        if e.type == "MemoryWritten" and e.payload.get("system") == "graphiti"
    }


def random_ids(store: EventStore) -> RandomIds:
    return RandomIds(list(store.read()))


def _fact(event_type: str, key: str) -> int:
    return int(hashlib.sha256(f"{event_type}\n{key}".encode()).hexdigest(), 16)


class ContentNames:
    """What the graph comparison calls things that name an execution rather than content, by their content:

    - Graphiti's random fact ids (`RandomIds`);
    - log positions: a chain hash (a run's `dataset_fingerprint`, the log head when its batch started) covers
      every earlier record's `recorded_at` clock, so two logs of the same events never share one; it is named
      by the (type, key) multiset of the log up to it (`log-prefix-...`);
    - LLM exchange hashes (`exchange`, `*_exchange`): the hash of a request and its reply, which embed
      Graphiti's random fact ids once a memory search returned them; each is named by a hash of the stored
      exchange with those ids renamed (`exchange-...`), looked up in the exchange store `exchanges`.
    """

    def __init__(self, events: list[Any], exchanges: Path | None = None) -> None:
        self.ids = RandomIds(events)
        self.positions: dict[str, str] = {}
        total = 0  # a sum of per-event hashes: the same for the same multiset, whatever the order
        for event in events:
            total = (total + _fact(event.type, _key(event.type, self.ids.rename(dict(event.payload)), ""))) % 2**256
            self.positions[str(event.hash)] = f"log-prefix-{total:064x}"[:27]
        self._exchanges = exchanges if exchanges is not None and exchanges.exists() else None
        self._exchange_names: dict[str, str] = {}
        self._store: Any = None

    def rename(self, value: Any) -> Any:
        return self._positions(self.ids.rename(value))

    def _positions(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.positions.get(value, value)
        if isinstance(value, list):
            return [self._positions(v) for v in value]
        if isinstance(value, dict):
            return {k: self._positions(v) for k, v in value.items()}
        return value

    def exchange(self, key: str) -> str:
        """The exchange `key` named by its content (Graphiti's fact ids renamed); `key` when not stored."""
        if self._exchanges is None or not isinstance(key, str):
            return key
        if key not in self._exchange_names:
            from agents.llm.exchanges import ExchangeNotFoundError, ExchangeStore

            if self._store is None:
                self._store = ExchangeStore(self._exchanges)
            try:
                shown = self._store.show(key)
            except ExchangeNotFoundError:
                self._exchange_names[key] = key
            else:
                body = self.ids.rename({k: shown[k] for k in ("role", "model", "request", "reply")})
                digest = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
                self._exchange_names[key] = f"exchange-{digest[:16]}"
        return self._exchange_names[key]

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def properties(self, props: dict[str, Any], seen: set[str]) -> dict[str, Any]:
        kept = stable_properties(props, seen)
        for name, value in kept.items():
            if name == "exchange" or name.endswith("_exchange"):
                kept[name] = self.exchange(value)
        return self.rename(kept)


def content_names(env: DrillEnv) -> ContentNames:
    return ContentNames(list(env.store().read()), Path(env.env["COLABENCH_DATA_DIR"]) / "llm_exchanges.sqlite")


def log_facts(store: EventStore) -> LogFacts:
    events = list(store.read())
    report = verify_chain(iter(events), expected_head=store.head().hash)
    ids = RandomIds(events)
    keys: Counter[tuple[str, str]] = Counter(
        (e.type, _key(e.type, ids.rename(dict(e.payload)), e.event_id)) for e in events
    )
    return LogFacts(
        events=len(events),
        by_type=dict(Counter(e.type for e in events)),
        keys=keys,
        content_ids={e.event_id for e in events},
        chain_ok=report.ok,
        chain_problem=report.problem,
    )


# Properties of projected nodes and relationships that measure a particular execution (durations, clocks,
# token and request counts a resumed command adds to, log positions `seq` / `*_seq`, which depend on the order
# concurrent and resumed work was appended in): left out of the graph comparison, and named in its output.
GRAPH_VOLATILE = frozenset(
    {"seconds", "ms", "latency_ms", "started_at", "finished_at", "at_wall", "usage", "timings", "measured", "seq"}
)


@dataclass(frozen=True)
class GraphFacts:
    """The projection as `graph fingerprint` reads it (admin/fingerprint_* statements), minus volatile
    properties, and the counts of Graphiti's own store (its SDK writes it, the projection excludes it)."""

    elements: Counter[str]  # element (labels or type, ends, stable properties as canonical JSON) -> how many
    labels: dict[str, int]
    relationship_types: dict[str, int]
    sdk_store: dict[str, int]
    volatile_seen: frozenset[str]

    def fingerprint(self) -> str:
        body = json.dumps(sorted(self.elements.items()))
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    def differences(self, reference: GraphFacts) -> list[str]:
        lines = []
        for what, mine, theirs in (
            ("label", self.labels, reference.labels),
            ("relationship", self.relationship_types, reference.relationship_types),
            ("Graphiti store", self.sdk_store, reference.sdk_store),
        ):
            for name in sorted(set(mine) | set(theirs)):
                if mine.get(name, 0) != theirs.get(name, 0):
                    lines.append(f"{what} {name}: reference {theirs.get(name, 0)}, drilled {mine.get(name, 0)}")
        extra, lacking = self.elements - reference.elements, reference.elements - self.elements
        if extra or lacking:
            lines.append(
                f"elements: {sum(extra.values())} not in the reference, {sum(lacking.values())} of the reference "
                "missing; e.g."
            )
            lines += [f"    drilled only: {e[:400]}" for e in sorted(extra)[:3]]
            lines += [f"    reference only: {e[:400]}" for e in sorted(lacking)[:3]]
        return lines


def _volatile(name: str) -> bool:
    return name in GRAPH_VOLATILE or name.startswith("seconds_") or name.endswith(("_seconds", "_ms", "_s", "_seq"))


def _stable_json(value: Any, path: str, seen: set[str]) -> Any:
    """A JSON value without the volatile keys at any depth (their dotted paths go to `seen`)."""
    if isinstance(value, dict):
        out = {}
        for name, inner in value.items():
            if _volatile(name):
                seen.add(f"{path}.{name}")
                continue
            out[name] = _stable_json(inner, f"{path}.{name}", seen)
        return out
    if isinstance(value, list):
        return [_stable_json(v, path, seen) for v in value]
    return value


def stable_properties(props: dict[str, Any], seen: set[str]) -> dict[str, Any]:
    """The properties without execution measures, also inside properties that hold a JSON object (a run's
    `config` holds its memory build's seconds)."""
    kept = {}
    for name, value in props.items():
        if _volatile(name):
            seen.add(name)
            continue
        if isinstance(value, str) and value.startswith("{"):
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                value = json.dumps(_stable_json(parsed, name, seen), sort_keys=True)
        kept[name] = repr(value) if isinstance(value, float) else value
    return kept


def graph_facts(driver: Driver, ids: ContentNames) -> GraphFacts:
    elements: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    types: Counter[str] = Counter()
    seen: set[str] = set()
    with driver.session() as session, closing(ids):
        for record in session.run(load_cypher("admin/fingerprint_nodes")):
            node_labels = sorted(record["labels"])
            labels.update(node_labels)
            body = {"l": node_labels, "p": ids.properties(dict(record["props"]), seen)}
            elements[json.dumps(body, sort_keys=True, default=str)] += 1
        for record in session.run(load_cypher("admin/fingerprint_relationships")):
            types[record["type"]] += 1
            body = {
                "t": record["type"],
                "a": [sorted(record["a_labels"]), ids.rename(record["a_id"])],
                "b": [sorted(record["b_labels"]), ids.rename(record["b_id"])],
                "p": ids.properties(dict(record["props"]), seen),
            }
            elements[json.dumps(body, sort_keys=True, default=str)] += 1
        sdk = {r["label"]: int(r["n"]) for r in session.run(load_cypher("drill/graphiti_store_nodes"))}
        for r in session.run(load_cypher("drill/graphiti_store_relationships")):
            sdk[f"-{r['type']}->"] = int(r["n"])
    return GraphFacts(elements, dict(labels), dict(types), sdk, frozenset(seen))


def dump_state(env: DrillEnv, path: Path) -> None:
    """Write the log (type and payload of every event, in order) and the projection's nodes and relationships
    to `path` (JSON lines), so a comparison can be looked at again after the drill's Neo4j is gone."""
    with path.open("w", encoding="utf-8") as out:
        for event in env.store().read():
            out.write(json.dumps({"event": event.type, "payload": dict(event.payload)}, default=str) + "\n")
        with env.driver.session() as session:
            for record in session.run(load_cypher("admin/fingerprint_nodes")):
                out.write(json.dumps({"node": sorted(record["labels"]), "props": dict(record["props"])}, default=str))
                out.write("\n")
            for record in session.run(load_cypher("admin/fingerprint_relationships")):
                out.write(json.dumps({"rel": record.data()}, default=str) + "\n")
