"""Encoder backed by an OpenAI-compatible `/v1/embeddings` endpoint, called through the `openai` SDK."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from graph.embeddings.encoder import Vectors, check_vectors, empty_vectors, l2_normalise
from graph.errors import UsageError

# The OpenAI API accepts at most 2048 inputs per request; smaller requests keep retries cheap.
DEFAULT_REQUEST_SIZE = 256
# Requests of one `encode` call in flight at once (the endpoint's latency, not our CPU, bounds one request).
DEFAULT_CONCURRENCY = 4


def _host_of(base_url: str) -> str:
    parts = urlsplit(base_url)
    if not parts.scheme or not parts.hostname:
        raise UsageError(f"embeddings base URL {base_url!r} is not an absolute http(s) URL")
    return f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname


class OpenAIEncoder:
    """Embeds through `client.embeddings.create` on `base_url`; vectors are L2-normalised locally.

    `dim` comes from the caller (the endpoint is never asked); a response of another size raises
    ValueError. The SDK is imported and the client built on the first non-empty `encode`.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dim: int,
        api_key: str | None = None,
        request_size: int = DEFAULT_REQUEST_SIZE,
        timeout_s: float = 60.0,
        max_retries: int = 2,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        if dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        if request_size < 1:
            raise ValueError(f"request_size must be >= 1, got {request_size}")
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        self.concurrency = concurrency
        self._host = _host_of(base_url)
        self.base_url = base_url
        self.model = model
        self._dim = dim
        # Local OpenAI-compatible servers often need no key, but the SDK refuses to start without one.
        self._api_key = api_key or "no-key"
        self.request_size = request_size
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def encoder_id(self) -> str:
        """`openai:<model>@<host[:port] of base_url>`."""
        return f"openai:{self.model}@{self._host}"

    @property
    def dim(self) -> int:
        return self._dim

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self._api_key,
                    timeout=self.timeout_s,
                    max_retries=self.max_retries,
                )
            return self._client

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Unit-length float32 vectors of shape (len(texts), dim), in input order: one request per
        `request_size` texts, up to `concurrency` requests in flight at once. Raises ValueError if the endpoint
        answers with the wrong count or size (the first failing request's error is raised)."""
        if not texts:
            return empty_vectors(self.dim)
        client = self._get_client()
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        starts = list(range(0, len(texts), self.request_size))

        def fill(start: int) -> None:
            self._request(client, list(texts[start : start + self.request_size]), out, start)

        if len(starts) == 1 or self.concurrency == 1:
            for start in starts:
                fill(start)
        else:
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(starts)), thread_name_prefix="embed") as pool:
                for future in [pool.submit(fill, start) for start in starts]:
                    future.result()
        return check_vectors(l2_normalise(out), len(texts), self.dim, self.encoder_id)

    def _request(self, client: Any, chunk: list[str], out: np.ndarray, start: int) -> None:
        """Embed one request's texts into rows start.. of `out`."""
        response = client.embeddings.create(model=self.model, input=chunk, encoding_format="float")
        items = sorted(response.data, key=lambda item: item.index)
        if [item.index for item in items] != list(range(len(chunk))):
            raise ValueError(
                f"{self.encoder_id}: asked for {len(chunk)} embeddings, got indices "
                f"{[item.index for item in items][:10]}..."
            )
        for item in items:
            if len(item.embedding) != self.dim:
                raise ValueError(
                    f"{self.encoder_id}: endpoint returned {len(item.embedding)}-dim vectors, "
                    f"configured dim is {self.dim}"
                )
            out[start + item.index] = item.embedding
