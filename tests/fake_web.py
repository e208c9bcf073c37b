"""A small web for tests of the synthesis web stage, served from a thread inside the test: a JSON search API in
the shape of SearxNG's `/search?format=json`, HTML pages and a robots.txt. Every request path is kept, so a
test can assert what was (and was never) fetched. Test infrastructure, like the fake OpenAI endpoint."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Route = tuple[int, str, bytes]  # status, content type, body


class FakeWeb:
    """`pages`: path -> (status, content type, body); `search`: query -> list of result paths (absolute URLs
    are made from them). Use as a context manager; `base_url` is where it listens."""

    def __init__(self, pages: dict[str, Route], search: Callable[[str], list[str]], robots: str = "") -> None:
        self.pages = dict(pages)
        self.search = search
        self.robots = robots
        self.requests: list[str] = []
        self._lock = threading.Lock()
        web = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with web._lock:
                    web.requests.append(self.path)
                status, ctype, body = web.route(self.path)
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def route(self, path: str) -> Route:
        parts = urlsplit(path)
        if parts.path == "/robots.txt":
            return (200, "text/plain", self.robots.encode()) if self.robots else (404, "text/plain", b"none")
        if parts.path == "/search":
            query = parse_qs(parts.query)
            if query.get("format") != ["json"]:
                return 400, "text/plain", b"format=json only"
            found = self.search(query.get("q", [""])[0])
            results = [{"url": self.base_url + p, "title": f"result {p}", "content": "snippet"} for p in found]
            return 200, "application/json", json.dumps({"query": query.get("q", [""])[0], "results": results}).encode()
        return self.pages.get(parts.path, (404, "text/html", b"<html><body>not found</body></html>"))

    def fetched(self, path: str) -> bool:
        with self._lock:
            return any(urlsplit(p).path == path for p in self.requests)

    def __enter__(self) -> FakeWeb:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
