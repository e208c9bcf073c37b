"""`FakeEmbeddings`: a threaded HTTP server answering POST /v1/embeddings after a fixed latency, with vectors
derived from each text's hash (the same text always gets the same vector). It counts requests and the most
requests it had in flight at once (to prove a client's concurrency). With `gather=n` each request waits (at
most `gather_bound_s`) until n requests are in flight together, so a client that sends n at once is seen with
n in flight however slowly its threads start on a loaded machine, and one that does not is seen with fewer.
Used by tests and bench/bench_ingest.py."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def fake_embedding(text: str, dim: int) -> list[float]:
    """A deterministic, unnormalised vector for `text`."""
    digest = hashlib.sha256(text.encode()).digest()
    return [(digest[i % len(digest)] - 127.5) / 64.0 for i in range(dim)]


class FakeEmbeddings:
    def __init__(
        self, *, dim: int = 8, latency_s: float = 0.0, port: int = 0, gather: int = 0, gather_bound_s: float = 5.0
    ) -> None:
        self.dim = dim
        self.latency_s = latency_s
        self.gather = gather
        self.gather_bound_s = gather_bound_s
        self.requests = 0
        self.inputs = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._in_flight_changed = threading.Condition(self._lock)
        state = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self.path.rstrip("/").endswith("/embeddings"):
                    self.send_error(404)
                    return
                with state._lock:
                    state.requests += 1
                    state.in_flight += 1
                    state.max_in_flight = max(state.max_in_flight, state.in_flight)
                    state._in_flight_changed.notify_all()
                    if state.gather:
                        state._in_flight_changed.wait_for(
                            lambda: state.max_in_flight >= state.gather, timeout=state.gather_bound_s
                        )
                try:
                    time.sleep(state.latency_s)
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    data = [
                        {"object": "embedding", "index": i, "embedding": fake_embedding(t, state.dim)}
                        for i, t in enumerate(inputs)
                    ]
                    raw = json.dumps(
                        {
                            "object": "list",
                            "data": data[::-1],
                            "model": body["model"],
                            "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
                        }
                    ).encode()
                finally:
                    with state._lock:
                        state.in_flight -= 1
                        state.inputs += len(body.get("input") or [])
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeEmbeddings:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
