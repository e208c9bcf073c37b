"""The OpenAI-compatible encoder against a tiny local server speaking the /v1/embeddings protocol."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from graph.embeddings import OpenAIEncoder, l2_normalise, load_encoder

DIM = 4


def fake_vector(text: str, dim: int = DIM) -> list[float]:
    """What the fake server returns for `text`: unnormalised, distinct per text."""
    return [float(len(text) + 1), float(sum(map(ord, text)) % 97), 3.0, -2.0][:dim] + [0.5] * max(0, dim - 4)


@dataclass
class FakeEmbeddingsServer:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    auth_headers: list[str | None] = field(default_factory=list)
    dim: int = DIM


@pytest.fixture()
def server() -> Iterator[FakeEmbeddingsServer]:
    state = FakeEmbeddingsServer(url="")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(body)
            state.auth_headers.append(self.headers.get("Authorization"))
            if self.path != "/v1/embeddings":
                self.send_error(404)
                return
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            data = [
                {"object": "embedding", "index": i, "embedding": fake_vector(text, state.dim)}
                for i, text in enumerate(inputs)
            ]
            # Out of order on purpose: clients must place vectors by `index`.
            payload = {
                "object": "list",
                "data": data[::-1],
                "model": body["model"],
                "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
            }
            raw = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_openai_encoder_returns_normalised_vectors_in_input_order(server: FakeEmbeddingsServer) -> None:
    encoder = OpenAIEncoder(base_url=server.url, model="fake-embed", dim=DIM, api_key="sk-test")
    texts = ["first", "the second text", "3"]
    vectors = encoder.encode(texts)
    assert vectors.dtype == np.float32 and vectors.shape == (3, DIM)
    np.testing.assert_allclose(vectors, l2_normalise([fake_vector(t) for t in texts]), rtol=1e-6)
    assert server.requests == [{"model": "fake-embed", "input": texts, "encoding_format": "float"}]
    assert server.auth_headers == ["Bearer sk-test"]


def test_openai_encoder_splits_large_inputs_into_several_requests(server: FakeEmbeddingsServer) -> None:
    encoder = OpenAIEncoder(base_url=server.url, model="fake-embed", dim=DIM, request_size=2)
    texts = [f"text {i}" * (i + 1) for i in range(5)]
    vectors = encoder.encode(texts)
    # requests run concurrently, so they reach the server in any order
    assert sorted(tuple(r["input"]) for r in server.requests) == [
        tuple(texts[0:2]), tuple(texts[2:4]), tuple(texts[4:5])
    ]
    np.testing.assert_allclose(vectors, l2_normalise([fake_vector(t) for t in texts]), rtol=1e-6)


def test_openai_encoder_id_names_model_and_host_without_calling_the_endpoint(
    server: FakeEmbeddingsServer,
) -> None:
    encoder = OpenAIEncoder(base_url=server.url, model="fake-embed", dim=DIM)
    port = server.url.split(":")[2].split("/")[0]
    assert encoder.encoder_id == f"openai:fake-embed@127.0.0.1:{port}"
    assert encoder.dim == DIM
    assert encoder.encode([]).shape == (0, DIM)
    assert server.requests == []


def test_openai_encoder_rejects_vectors_of_another_size(server: FakeEmbeddingsServer) -> None:
    encoder = OpenAIEncoder(base_url=server.url, model="fake-embed", dim=DIM + 2)
    with pytest.raises(ValueError, match="returned 4-dim vectors, configured dim is 6"):
        encoder.encode(["hello"])


def test_load_encoder_reads_openai_endpoint_and_key_from_the_environment(
    server: FakeEmbeddingsServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("COLABENCH_HOME", str(tmp_path))
    monkeypatch.setenv("COLABENCH_EMBEDDINGS_BASE_URL", server.url)
    monkeypatch.setenv("COLABENCH_EMBEDDINGS_API_KEY", "sk-from-env")
    encoder = load_encoder(f"openai:fake-embed:{DIM}")
    encoder.encode(["cached once", "cached once"])
    encoder.encode(["cached once"])
    assert server.auth_headers == ["Bearer sk-from-env"]
    assert [r["input"] for r in server.requests] == [["cached once"]]
