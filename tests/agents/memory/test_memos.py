"""MemOS behind the memory adapter protocol, smoke test: its MemReader and tree text memory (in the MemOS
environment of scripts/setup_memos_env.sh, on a Neo4j server of its own) build `http:memos` memories from the
mini bundle through agents/memory/adapter_server/memos_server.py, traced to turns, and its search answers; a
reply its reader cannot parse refuses the batch. The fake endpoint plays MemOS's reader
(tests/fake_openai/memos_script.py), fake embeddings its embedder.

Not part of `make test`: it needs the MemOS environment (139 packages) and a second Neo4j. Run it with
`COLABENCH_MEMOS_ENV=$(scripts/setup_memos_env.sh)`; without that variable it is skipped."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.memory.errors import AdapterError
from agents.memory.prepare import open_memory_system, prepare_memory
from graph.server import throwaway_server
from graph.store import EventStore
from query.retriever import Retriever
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.embeddings import FakeEmbeddings
from tests.fake_openai.memos_script import memos_reader_reply
from tests.paths import REPO

MEMOS_ENV = os.environ.get("COLABENCH_MEMOS_ENV", "")
PROFILE = "mini-p-sam"

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(
        not MEMOS_ENV, reason="needs the MemOS environment: COLABENCH_MEMOS_ENV=$(scripts/setup_memos_env.sh)"
    ),
]


@pytest.fixture()
def mini(driver: Any, encoder: Any) -> Iterator[tuple[EventStore, Retriever]]:
    from tests.conftest import MINI_BUNDLE, _load_bundle

    store = _load_bundle(driver, encoder, MINI_BUNDLE)
    retriever = Retriever(store.driver, store.encoder)
    yield store, retriever
    retriever.close()


@pytest.fixture()
def memos_adapter(tmp_path: Path) -> Iterator[str]:
    """The MemOS adapter as a process of the MemOS environment, on a throwaway Neo4j (MemOS labels its nodes
    `Memory`, the projection's own label, so it cannot share the evidence graph's database); yields its URL."""
    with FakeOpenAI(memos_reader_reply) as fake, FakeEmbeddings(dim=32) as embeddings, throwaway_server(
        tmp_path / "memos-neo4j", heap="512m", pagecache_mib=64, timeout_s=600
    ) as (neo4j, _):
        env = {
            **os.environ,
            "MEMOS_ADAPTER_LLM_BASE_URL": fake.base_url,
            "MEMOS_ADAPTER_LLM_MODEL": "fake-model",
            "MEMOS_ADAPTER_EMBED_BASE_URL": embeddings.base_url,
            "MEMOS_ADAPTER_EMBED_MODEL": "fake-embeddings",
            "MEMOS_ADAPTER_EMBED_DIM": "32",
            "MEMOS_ADAPTER_NEO4J_URI": f"bolt://127.0.0.1:{neo4j.local_port}",
            "PYTHONPATH": "",
        }
        server = subprocess.Popen(
            [f"{MEMOS_ENV}/bin/python", str(REPO / "agents/memory/adapter_server/memos_server.py"), "--port", "0"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        try:
            assert server.stdout is not None
            line = server.stdout.readline()  # blocks until MemOS is open and the socket listens
            assert line.startswith("READY "), f"the MemOS adapter did not start (exit {server.poll()})"
            yield line.split()[1]
        finally:
            server.terminate()
            server.wait(timeout=60)


def test_memos_builds_traced_memories_and_searches_through_its_adapter(
    mini: tuple[EventStore, Retriever], memos_adapter: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, retriever = mini
    monkeypatch.setenv("COLABENCH_MEMORY_ADAPTER_MEMOS_URL", memos_adapter)
    monkeypatch.setenv("COLABENCH_MEMORY_ADAPTER_MEMOS_TIMEOUT", "600")
    report = prepare_memory("http:memos", store, retriever, PROFILE)
    assert report.pairs_built == report.pairs_total > 0 and report.memories_added > 0
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (m:Memory {system: 'http:memos'}) OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn) "
            "RETURN m.id AS id, m.text AS text, collect(t.profile_id) AS profiles",
        ).data()
    assert len(rows) == report.memories_added
    assert all(r["text"].startswith("The user said: ") and r["profiles"] and set(r["profiles"]) == {PROFILE}
               for r in rows)
    system = open_memory_system("http:memos", store)
    try:
        found = system.search_memories(PROFILE, "tattoo", 3)
    finally:
        system.close()
    assert found and {m.id for m in found} <= {r["id"] for r in rows}

    # A reply MemOS's reader cannot parse (it would keep the raw text as a memory) refuses the batch: one line
    # naming the adapter and the call, nothing of the profile written.
    with pytest.raises(AdapterError) as caught:
        prepare_memory("http:memos", store, retriever, "mini-p-ravi")
    line = str(caught.value)
    assert "POST /v1/add failed: HTTP 422" in line and "JSON parse failed" in line and "\n" not in line
    with store.driver.session() as session:
        ravi = session.run("MATCH (m:Memory {system: 'http:memos', profile_id: 'mini-p-ravi'}) RETURN count(m) AS n")
        assert ravi.single()["n"] == 0  # type: ignore[index]
