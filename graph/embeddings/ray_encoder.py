"""`ingest --executor ray`: texts embedded by Ray actors, on a local Ray instance or a Ray cluster.

`RayEncoder` is an Encoder (the same `encoder_id` and vectors as the encoder it names) whose `encode` splits the
texts into shards of at most `shard_size` and hands them to `workers` actors, each holding its own copy of the
named encoder (the ONNX model loads once per actor). It goes behind the usual `CachedEncoder`, so only texts the
embedding cache lacks travel to the actors and the cache stays in the driver process; what is appended to the
log is unchanged (the events carry texts, the projection their vectors). An actor that dies fails the call with
RayExecutorError naming it; nothing is written for that batch of events, and the same command resumes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graph.config_file import config_path
from graph.embeddings.encoder import Vectors, check_vectors, empty_vectors
from graph.embeddings.loader import make_encoder
from graph.embeddings.onnx_encoder import OnnxEncoder
from graph.ray_runtime import RayExecutorError, RayPool, apply_environment, carried_environment, last_line

DEFAULT_SHARD = 256  # texts per actor call: large enough for the ONNX batches, small enough to spread a batch


class EmbedActor:
    """One Ray actor: the named encoder (uncached) in the driver's environment."""

    def __init__(self, name: str | None, env: dict[str, str], config_text: str | None, threads: int) -> None:
        self._scratch = apply_environment(env, config_text)
        self.encoder = make_encoder(name)
        if isinstance(self.encoder, OnnxEncoder):
            # Its share of the node's CPUs, not every core of it (actors on one node would oversubscribe them).
            self.encoder.threads = threads

    def identity(self) -> tuple[str, int]:
        return self.encoder.encoder_id, self.encoder.dim

    def encode(self, texts: list[str]) -> Vectors:
        return self.encoder.encode(texts)


class RayEncoder(RayPool):
    """The encoder `name` run by `workers` Ray actors (see the module docstring). Ray is started or joined on
    the first encode: a Ray already initialised in this process is used as it is; else `address` or, without
    one, a local instance with `workers` logical CPUs. Use it as a context manager (or call `close`)."""

    def __init__(
        self, name: str | None = None, *, workers: int = 2, address: str | None = None, shard_size: int | None = None
    ) -> None:
        super().__init__(workers, address)
        self.name = name
        self.local = make_encoder(name)  # identity only: nothing is loaded until an encode
        self.shard_size = max(1, shard_size or DEFAULT_SHARD)
        self.texts_per_actor: list[int] = []  # texts each actor embedded (for progress and tests)

    @property
    def encoder_id(self) -> str:
        return self.local.encoder_id

    @property
    def dim(self) -> int:
        return self.local.dim

    def _ensure_actors(self) -> None:
        if self._actors:
            return
        self._ensure_ray()
        path = config_path()
        config_text = path.read_text(encoding="utf-8") if path is not None else None
        share = self.cpu_share()
        args = (self.name, carried_environment(), config_text, max(1, int(share)))
        identities = self.start_actors(EmbedActor, args, probe="identity", what="embedding", num_cpus=share)
        self.texts_per_actor = [0] * self.workers
        for encoder_id, dim in identities:
            if (encoder_id, dim) != (self.encoder_id, self.dim):
                self.close()
                raise RayExecutorError(
                    f"a Ray embedding worker has encoder {encoder_id} ({dim} dimensions), this process "
                    f"{self.encoder_id} ({self.dim}): every node needs the same model files"
                )

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Unit-length float32 vectors in input order, embedded by the actors shard by shard."""
        if not texts:
            return empty_vectors(self.dim)
        self._ensure_actors()
        ray = self._ray
        shards = [list(texts[i : i + self.shard_size]) for i in range(0, len(texts), self.shard_size)]
        refs = []
        for n, shard in enumerate(shards):
            k = n % len(self._actors)
            refs.append(self._actors[k].encode.remote(shard))
            self.texts_per_actor[k] += len(shard)
        try:
            parts = ray.get(refs)
        except ray.exceptions.RayError as exc:
            raise RayExecutorError(
                f"a Ray embedding worker failed: {last_line(exc)}; nothing of this batch was written, "
                "run the same command again to resume"
            ) from exc
        out = np.concatenate([np.asarray(p, dtype=np.float32) for p in parts], axis=0)
        return check_vectors(out, len(texts), self.dim, self.encoder_id)
