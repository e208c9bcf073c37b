"""Running an adapter app: in the foreground (`python -m agents.memory.adapter_server`) or on a thread of the
calling process (`serve_in_thread`, for tests and benchmarks). The socket is bound and listening before the
thread starts, so the first request never races the server's start."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI


def _config(app: FastAPI) -> uvicorn.Config:
    return uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=5)


@contextmanager
def serve_in_thread(app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve `app` on a thread for the `with` block; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    server = uvicorn.Server(_config(app))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="memory-adapter", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{sock.getsockname()[1]}"
    finally:
        release = getattr(app.state, "release", None)
        if release is not None:
            release.set()
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def serve_forever(app: FastAPI, host: str, port: int) -> None:
    config = _config(app)
    config.host, config.port = host, port
    uvicorn.Server(config).run()
