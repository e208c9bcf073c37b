"""Recorded replies of the synthesis role, served over the OpenAI protocol, so a synthesis reruns offline and
gives the same records (`synth ... --replay FILE`; the bundled `synth-sample` is built so).

A replies file is JSONL: a header line `{"format": "colabench-replies/1", "model": M}` (the model the requests
name), then one line per request: `{"request": SHA-256 of the canonical request body, "role": schema title or
"assistant"/"plain", "message": the assistant message}`. A request that has no recorded reply gets HTTP 404
naming its hash and role: the stage stops (a replay never invents a reply), and the same command resumes.
`ReplayServer` with a `Recorder` serves replies from any other responder and writes them as such a file.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agents.synthesis.errors import SynthesisError
from graph.hashing import canonical_bytes

FORMAT = "colabench-replies/1"
# A message responder: the request body -> the assistant message ({"content": ...} and/or {"tool_calls": ...}),
# or None when it has no reply for that request.
Responder = Callable[[dict[str, Any]], dict[str, Any] | None]


def request_hash(body: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a chat request body as the endpoint received it."""
    return hashlib.sha256(canonical_bytes(body)).hexdigest()


def request_role(body: dict[str, Any]) -> str:
    """The schema title a structured request asks for; "assistant" for a tool request, else "plain"."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return str(fmt["json_schema"]["schema"].get("title"))
    if fmt.get("type") == "json_object":
        for message in body.get("messages", []):
            content = str(message.get("content") or "")
            marker = content.find("JSON Schema:\n")
            if marker >= 0:
                return str(json.loads(content[marker + len("JSON Schema:\n") :]).get("title"))
    return "assistant" if body.get("tools") else "plain"


class RecordedReplies:
    """The replies of a replies file, by request hash."""

    def __init__(self, model: str, replies: dict[str, dict[str, Any]]) -> None:
        self.model = model
        self.replies = replies
        self.served: set[str] = set()
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: Path) -> RecordedReplies:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        if not lines:
            raise SynthesisError(f"{path}: empty replies file")
        header = json.loads(lines[0])
        if header.get("format") != FORMAT:
            raise SynthesisError(f"{path}: not a replies file (first line must hold format {FORMAT!r})")
        replies: dict[str, dict[str, Any]] = {}
        for number, line in enumerate(lines[1:], start=2):
            record = json.loads(line)
            if not isinstance(record.get("message"), dict) or not isinstance(record.get("request"), str):
                raise SynthesisError(f"{path}:{number}: a reply line needs request (hash) and message")
            replies[record["request"]] = record["message"]
        return cls(str(header.get("model") or ""), replies)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any] | None:
        key = request_hash(body)
        message = self.replies.get(key)
        if message is not None:
            with self._lock:
                self.served.add(key)
        return message


class Recorder:
    """Wraps a responder and keeps every (request hash, role, message) it gave, in request order."""

    def __init__(self, responder: Responder, model: str) -> None:
        self.responder = responder
        self.model = model
        self.records: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any] | None:
        message = self.responder(body)
        if message is not None:
            with self._lock:
                self.records.setdefault(
                    request_hash(body), {"request": request_hash(body), "role": request_role(body), "message": message}
                )
        return message

    def write(self, path: Path) -> int:
        """Write the replies file (header, then the replies sorted by request hash); returns the replies."""
        with self._lock:
            records = sorted(self.records.values(), key=lambda r: r["request"])
        with Path(path).open("w", encoding="utf-8") as handle:
            handle.write(json.dumps({"format": FORMAT, "model": self.model}) + "\n")
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        return len(records)


def _tokens(value: Any) -> int:
    """A stand-in token count (a replay has no tokenizer): a word count of the JSON text, at least 1."""
    return max(1, len(json.dumps(value, ensure_ascii=False).split()))


class ReplayServer:
    """An OpenAI-protocol endpoint on 127.0.0.1 answering chat completions from a responder (`/models` lists
    the model; the endpoint check's one-token ping is answered)."""

    def __init__(self, responder: Responder, model: str) -> None:
        self.responder = responder
        self.model = model
        self.misses: list[tuple[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    listed = [{"id": server.model, "object": "model", "owned_by": "replay"}]
                    self._send(200, {"object": "list", "data": listed})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found"}})
                    return
                self._send(*server.answer(body))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        from agents.llm.preflight import PING_TEXT

        messages = body.get("messages") or []
        if body.get("max_tokens") == 1 and len(messages) == 1 and messages[0].get("content") == PING_TEXT:
            return 200, self._completion(body, {"content": "ready"})
        if body.get("model") != self.model:
            return 404, {"error": {"message": f"model {body.get('model')!r} not found (serving {self.model!r})"}}
        message = self.responder(body)
        if message is None:
            key, role = request_hash(body), request_role(body)
            self.misses.append((key, role))
            return 404, {"error": {"message": f"no recorded reply for request {key} (role {role})"}}
        return 200, self._completion(body, message)

    def _completion(self, body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        reply = {"role": "assistant", "content": message.get("content"), **message}
        prompt, completion = _tokens(body.get("messages", [])), _tokens(reply)
        return {
            "id": f"chatcmpl-{request_hash(body)[:12]}",
            "object": "chat.completion",
            "created": 0,
            "model": self.model,
            "choices": [
                {"index": 0, "message": reply, "finish_reason": "tool_calls" if reply.get("tool_calls") else "stop"}
            ],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()
