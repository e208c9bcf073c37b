"""`ingest --executor ray` (graph/embeddings/ray_encoder.py) on a local Ray instance over the real Neo4j: the texts
the embedding cache lacks are embedded by the actors (both of them get work), the vectors are the local encoder's,
texts already cached are never sent, and the graph is the one a local ingest makes.

Ray is an optional extra: `make test` runs the suite in the environment of scripts/setup_ray_env.sh and sets
COLABENCH_TESTS_NEED_RAY=1, so a missing Ray fails there instead of skipping."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from graph.embeddings import load_encoder
from graph.embeddings.cache import EmbeddingCache
from graph.embeddings.cached import CachedEncoder
from graph.fingerprint import compute_fingerprint
from tests.conftest import serial_group

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config"), serial_group("ray")]


def _kb(tmp_path: Path, n: int) -> tuple[Path, list[str]]:
    """A knowledge base of n documents whose texts no cache has seen (a fresh token in each)."""
    token = uuid.uuid4().hex
    texts = [
        f"Document {i} about remedy {token}-{i}: rest, fluids and a follow-up visit after {i} days." for i in range(n)
    ]
    path = tmp_path / "kb.jsonl"
    path.write_text(
        "".join(
            json.dumps({"doc_id": f"ray-d{i}", "title": f"Remedy {i}", "text": t}) + "\n" for i, t in enumerate(texts)
        )
    )
    return path, texts


def _chunk_vectors(driver: Any) -> dict[str, list[float]]:
    with driver.session() as session:
        rows = session.run("MATCH (c:Chunk) RETURN c.id AS id, c.text AS text, c.embedding AS v")
        return {r["text"]: list(r["v"]) for r in rows}


def test_ingest_on_ray_embeds_the_cache_misses_on_the_actors_with_the_local_vectors(
    local_ray: Any, empty_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli import app
    from graph.embeddings import ray_encoder

    monkeypatch.setattr(ray_encoder, "DEFAULT_SHARD", 8)  # 40 texts -> 5 shards over the 2 actors
    path, _texts = _kb(tmp_path, 40)
    result = CliRunner().invoke(app, ["ingest", str(path), "--format", "kb", "--executor", "ray", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert "embedding on Ray: 2 actor(s) on a local Ray instance" in result.output
    embedded = next(line for line in result.output.splitlines() if line.startswith("Ray actors embedded"))
    shares = re.search(r"; per actor: ([\d, ]+)$", embedded)
    assert shares is not None, embedded
    per_actor = [int(n.replace(",", "")) for n in shares.group(1).split(", ")]
    assert len(per_actor) == 2 and all(n > 0 for n in per_actor), embedded
    stored = _chunk_vectors(empty_db)
    assert sum(per_actor) == len(stored) == 40
    local = load_encoder().encoder.encode(list(stored))  # the uncached local encoder
    cosines = np.sum(local * np.asarray(list(stored.values()), dtype=np.float32), axis=1)
    assert float(cosines.min()) > 0.99999
    ray_fingerprint = compute_fingerprint(empty_db).digest

    # The same input ingested locally into an emptied graph projects the same graph.
    with empty_db.session() as session:
        session.run("MATCH (n) DETACH DELETE n").consume()
    again = CliRunner().invoke(app, ["ingest", str(path), "--format", "kb"])
    assert again.exit_code == 0, again.output
    assert compute_fingerprint(empty_db).digest == ray_fingerprint


def test_texts_already_in_the_cache_are_not_sent_to_the_actors(local_ray: Any, tmp_path: Path) -> None:
    from graph.embeddings.ray_encoder import RayEncoder

    _path, texts = _kb(tmp_path, 6)
    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    CachedEncoder(load_encoder().encoder, cache).encode(texts[:4])  # four of six cached beforehand
    with RayEncoder(workers=2, shard_size=1) as remote:
        vectors = CachedEncoder(remote, cache).encode(texts)
        assert sum(remote.texts_per_actor) == 2
        assert remote.encoder_id == load_encoder().encoder_id
    assert vectors.shape == (6, remote.dim)
    assert local_ray.is_initialized(), "an encoder that did not start Ray must leave it running"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ray-address", "head:6379"], "--ray-address names the Ray cluster of --executor ray"),
        (["--executor", "dask"], "--executor 'dask': choose local (the default) or ray"),
    ],
)
def test_ingest_executor_mistakes_are_one_message_and_write_nothing(
    empty_db: Any, tmp_path: Path, args: list[str], message: str
) -> None:
    from cli import app

    path, _texts = _kb(tmp_path, 2)
    result = CliRunner().invoke(app, ["ingest", str(path), "--format", "kb", *args])
    assert result.exit_code == 2, result.output  # bad input, as `run` gives for the same mistakes
    assert message in " ".join(result.output.split()) and "Traceback" not in result.output
    with empty_db.session() as session:
        assert session.run("MATCH (e:Event) RETURN count(e) AS n").single()["n"] == 0
