"""`FakeOpenAI`: a threaded HTTP server answering POST /v1/chat/completions from a responder function.

The responder receives the request body (dict) and returns a `Reply` (text, tool calls or a JSON object).
Faults queued with `inject` are applied to the next requests in order: HTTP 429 (with Retry-After), HTTP
500, a delay longer than the client's timeout, a body that is not JSON, or a completion whose content is not
valid JSON. A responder may return a Reply with `finish_reason="length"` (a reply cut at max_tokens) or raise
`HttpError(status)` to refuse one request. `served_model` names another model in every completion than
the one asked for (a server that runs something else). With `n_ctx`, GET /props (at the root) reports it as
llama.cpp's server does (`default_generation_settings.n_ctx`). GET /stats returns the request count (for
subprocess use). GET /models lists `models` (default "fake-model"); with `models` set, a completion for another
model is refused with 404; with `api_key` set, a request without that bearer key gets 401. The CLI's endpoint
check (a one-token request, agents/llm/preflight.py) is answered by the server itself and counted in
`check_requests`, never in `requests`.

POST /tokenize (at the server root, as llama.cpp's and vLLM's servers have it) answers when `tokenizer` is
set: "llama.cpp" (`{"content"}` -> `{"tokens"}`), "vllm" (`{"model", "prompt"}` -> `{"count", "tokens"}`, the
llama.cpp form refused with 400) or "broken" (HTTP 500); unset, 404 as on an OpenAI endpoint. Its tokens are
one per character (`fake_token_count`), a count no real tokenizer gives, so a test can tell where a count came
from. Tokenize requests are counted in `tokenize_requests`, not in `requests`.

`rate_limit_each(times, retry_after)` plays a rate-limited endpoint under load: every distinct request body is
answered HTTP 429 (with that Retry-After) `times` times before it is answered, whatever the order and
concurrency of the requests (counted in `rate_limited`). `prefix_cache` makes completions say how many prompt
tokens a prefix cache held, as the longest common prefix with one of the last `PREFIX_SLOTS` prompts (tools,
then each message's role and content), a quarter token per character: "openai" in
`usage.prompt_tokens_details.cached_tokens` (OpenAI, vLLM), "llama.cpp" in `timings.cache_n` (llama-server);
unset, nothing is said.

`hold_when(predicate, api_key=...)` is a barrier for tests that interrupt a client: every request the predicate
accepts (and, with `api_key`, that carries that bearer key: one client among several can be told apart) is
held (no reply) until `release()`; `wait_held(n)` returns once n requests are held, so a test can send its signal
while a request is certainly in flight, whatever the machine's load.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    content: str | None = None
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # None: "tool_calls" when there are calls, else "stop"; "length" plays a reply cut at max_tokens.
    finish_reason: str | None = None

    @classmethod
    def text(cls, content: str) -> Reply:
        return cls(content=content)

    @classmethod
    def json(cls, value: Any) -> Reply:
        return cls(content=json.dumps(value))

    @classmethod
    def tools(cls, *calls: tuple[str, dict[str, Any]]) -> Reply:
        return cls(content=None, tool_calls=list(calls))


@dataclass(frozen=True)
class Fault:
    kind: str
    seconds: float = 0.0

    @classmethod
    def rate_limit(cls, retry_after: float = 0.0) -> Fault:
        return cls("429", retry_after)

    @classmethod
    def server_error(cls) -> Fault:
        return cls("500")

    @classmethod
    def http(cls, status: int) -> Fault:
        """Any HTTP error status (e.g. 400 or 401, which must not be retried)."""
        return cls(f"http:{status}")

    @classmethod
    def timeout(cls, seconds: float) -> Fault:
        return cls("timeout", seconds)

    @classmethod
    def malformed_body(cls) -> Fault:
        return cls("malformed_body")

    @classmethod
    def invalid_json_content(cls) -> Fault:
        return cls("invalid_json_content")


class HttpError(Exception):
    """Raised by a responder to answer this request with an HTTP error status (e.g. 400 context exceeded)."""

    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(message or f"scripted HTTP {status}")
        self.status = status
        self.message = message or f"scripted HTTP {status}"


Responder = Callable[[dict[str, Any]], Reply]


def fake_token_count(text: str) -> int:
    """The fake tokenizer's count: one token per character."""
    return len(text)


def _approx_tokens(value: Any) -> int:
    return max(1, len(json.dumps(value)) // 4)


PREFIX_SLOTS = 16  # prompts the fake's prefix cache remembers


def prompt_text(body: dict[str, Any]) -> str:
    """The prompt as a prefix cache sees it: tool definitions first, then each message's role and content."""
    parts = [json.dumps(body.get("tools") or [], sort_keys=True)]
    parts.extend(f"<{m.get('role')}>{m.get('content') or ''}" for m in body.get("messages") or [])
    return "\n".join(parts)


def common_prefix_length(a: str, b: str) -> int:
    """Length of the longest common prefix of two strings (a binary search over slice comparisons)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


class FakeOpenAI:
    """Start with `with FakeOpenAI(responder) as fake:`; `fake.base_url` is the /v1 URL to configure."""

    def __init__(
        self,
        responder: Responder,
        *,
        latency_s: float = 0.0,
        port: int = 0,
        tokenizer: str | None = None,
        served_model: str | None = None,
        n_ctx: int | None = None,
        prefix_cache: str | None = None,
        models: list[str] | None = None,
        api_key: str | None = None,
    ) -> None:
        if prefix_cache not in (None, "openai", "llama.cpp"):
            raise ValueError(f"prefix_cache is 'openai', 'llama.cpp' or None, not {prefix_cache!r}")
        self.responder = responder
        self.prefix_cache = prefix_cache
        self._prompts: deque[str] = deque(maxlen=PREFIX_SLOTS)
        self._limit_each = 0
        self._limit_retry_after = 0.0
        self._limited: dict[str, int] = {}
        self.rate_limited = 0
        # GET /models lists these (default: "fake-model", any model name is still served, as llama.cpp's server
        # does); set, a completion for another model is refused with 404 "model ... not found", as vLLM, Ollama
        # and OpenAI refuse it.
        self.models = models
        # Set, every request without `Authorization: Bearer <api_key>` is refused with 401 (a wrong or missing key).
        self.api_key = api_key
        self.models_requests = 0
        # The CLI's endpoint check (agents/llm/preflight.py: a one-token request of a fixed text) is answered
        # here, not by the responder, and counted apart from `requests`: no script sees it, no fault or hold
        # applies to it.
        self.check_requests = 0
        # GET /props answers llama.cpp's `default_generation_settings.n_ctx` when set (404 otherwise).
        self.n_ctx = n_ctx
        # The `model` a completion names: the requested one by default; set, a server running another model
        # (llama-server names its GGUF file whatever the request asks for).
        self.served_model = served_model
        self.tokenizer = tokenizer
        self.tokenize_requests = 0
        self.latency_s = latency_s
        self.requests: list[dict[str, Any]] = []
        # Time spent inside the handler (parsing, scripted reply, latency, writing): the endpoint's share.
        self.server_seconds = 0.0
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._counter = 0
        self._hold: Callable[[dict[str, Any]], bool] | None = None
        self._hold_key = ""
        self._held = 0
        self._released = threading.Event()
        self._held_changed = threading.Condition(self._lock)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body are separate writes; without this, Nagle + delayed ACK add ~40 ms per reply.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # silence the default stderr log
                return

            def _key_refused(self) -> bool:
                if fake.api_key is None or self.headers.get("authorization") == f"Bearer {fake.api_key}":
                    return False
                refusal = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
                self._send(401, json.dumps(refusal).encode())
                return True

            def do_GET(self) -> None:
                if self._key_refused():
                    return
                if self.path.rstrip("/").endswith("/stats"):
                    self._send(200, json.dumps({"requests": fake.request_count}).encode())
                elif self.path.rstrip("/").endswith("/models"):
                    with fake._lock:
                        fake.models_requests += 1
                    listed = [{"id": m, "object": "model", "owned_by": "fake"} for m in fake.models or ["fake-model"]]
                    self._send(200, json.dumps({"object": "list", "data": listed}).encode())
                elif self.path.rstrip("/") == "/props" and fake.n_ctx is not None:
                    props = {"default_generation_settings": {"n_ctx": fake.n_ctx}, "total_slots": 1}
                    self._send(200, json.dumps(props).encode())
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:
                if fake.api_key is not None and self.headers.get("authorization") != f"Bearer {fake.api_key}":
                    self.rfile.read(int(self.headers.get("content-length") or 0))
                    self._key_refused()
                    return
                started = time.perf_counter()
                try:
                    self._post()
                finally:
                    with fake._lock:
                        fake.server_seconds += time.perf_counter() - started

            def _post(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") == "/tokenize":
                    self._tokenize(body)
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": {"message": "not found"}}')
                    return
                self._chat(body)

            def _chat(self, body: dict[str, Any]) -> None:
                if fake.models is not None and body.get("model") not in fake.models:
                    if fake._is_check(body):
                        with fake._lock:
                            fake.check_requests += 1
                    message = {"error": {"message": f"model {body.get('model')!r} not found", "type": "not_found"}}
                    self._send(404, json.dumps(message).encode())
                    return
                if fake._is_check(body):
                    with fake._lock:
                        fake.check_requests += 1
                    self._send(200, json.dumps(fake._completion(body, Reply.text("ready"))).encode())
                    return
                fault = fake._next_fault(body)
                if fault is None:
                    fault = fake._storm_fault(body)
                if fault is not None and fault.kind == "429":
                    headers = {"retry-after": f"{fault.seconds:g}"}
                    self._send(429, b'{"error": {"message": "rate limited", "type": "rate_limit"}}', headers)
                    return
                if fault is not None and fault.kind == "500":
                    self._send(500, b'{"error": {"message": "internal error", "type": "server_error"}}')
                    return
                if fault is not None and fault.kind.startswith("http:"):
                    status = int(fault.kind.split(":", 1)[1])
                    self._send(status, json.dumps({"error": {"message": f"scripted HTTP {status}"}}).encode())
                    return
                if fault is not None and fault.kind == "timeout":
                    time.sleep(fault.seconds)
                if fault is not None and fault.kind == "malformed_body":
                    self._send(200, b'{"id": "chatcmpl-broken", "choices": [{"index": 0, "mess')
                    return
                if fake.latency_s:
                    time.sleep(fake.latency_s)
                fake._wait_if_held(body, str(self.headers.get("authorization") or ""))
                try:
                    reply = fake.responder(body)
                except HttpError as refused:
                    self._send(refused.status, json.dumps({"error": {"message": refused.message}}).encode())
                    return
                except Exception as exc:  # a broken script shows up as a 500 the test can see
                    self._send(500, json.dumps({"error": {"message": f"responder failed: {exc!r}"}}).encode())
                    return
                if fault is not None and fault.kind == "invalid_json_content":
                    reply = Reply.text('{"verdict": "pass", "rationale": ')
                self._send(200, json.dumps(fake._completion(body, reply)).encode())

            def _tokenize(self, body: dict[str, Any]) -> None:
                with fake._lock:
                    fake.tokenize_requests += 1
                flavour = fake.tokenizer
                if flavour is None:
                    self._send(404, b'{"error": {"message": "not found"}}')
                elif flavour == "broken":
                    self._send(500, b'{"error": {"message": "tokenizer crashed"}}')
                elif flavour == "llama.cpp" and isinstance(body.get("content"), str):
                    n = fake_token_count(body["content"])
                    self._send(200, json.dumps({"tokens": list(range(n))}).encode())
                elif flavour == "vllm" and isinstance(body.get("prompt"), str) and body.get("model"):
                    n = fake_token_count(body["prompt"])
                    self._send(200, json.dumps({"count": n, "tokens": list(range(n)), "max_model_len": 8192}).encode())
                else:
                    self._send(400, b'{"error": {"message": "bad tokenize request"}}')

            def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up (a timeout fault)

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True)

    # --- lifecycle --------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- scripting --------------------------------------------------------------------------------

    def inject(self, *faults: Fault) -> None:
        """Apply these faults, in order, to the next requests."""
        with self._lock:
            self._faults.extend(faults)

    def rate_limit_each(self, times: int = 1, retry_after: float = 0.0) -> None:
        """From now on, answer every distinct request body HTTP 429 (Retry-After `retry_after`) `times` times
        before answering it."""
        with self._lock:
            self._limit_each = times
            self._limit_retry_after = retry_after

    def _storm_fault(self, body: dict[str, Any]) -> Fault | None:
        with self._lock:
            if not self._limit_each:
                return None
            key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
            refused = self._limited.get(key, 0)
            if refused >= self._limit_each:
                return None
            self._limited[key] = refused + 1
            self.rate_limited += 1
            return Fault.rate_limit(self._limit_retry_after)

    def _cached_prompt_tokens(self, body: dict[str, Any], prompt_tokens: int) -> int:
        text = prompt_text(body)
        with self._lock:
            longest = max((common_prefix_length(text, seen) for seen in self._prompts), default=0)
            self._prompts.append(text)
        return min(prompt_tokens, longest // 4)

    def hold_when(self, predicate: Callable[[dict[str, Any]], bool], *, api_key: str = "") -> None:
        """From now on, hold every request whose body `predicate` accepts (and, with `api_key`, that was sent
        with that key) until `release()`."""
        with self._lock:
            self._released.clear()
            self._hold = predicate
            self._hold_key = api_key

    def release(self) -> None:
        """Answer the held requests and hold no more."""
        with self._lock:
            self._hold = None
            self._released.set()

    @property
    def held(self) -> int:
        """Requests held so far (answered or not)."""
        with self._lock:
            return self._held

    def wait_held(self, count: int = 1, *, bound_s: float = 300.0) -> bool:
        """Wait until `count` requests were held (True), or `bound_s` passed (False: a generous bound)."""
        with self._held_changed:
            return self._held_changed.wait_for(lambda: self._held >= count, timeout=bound_s)

    def _wait_if_held(self, body: dict[str, Any], authorization: str) -> None:
        with self._lock:
            hold = self._hold
            if hold is None or (self._hold_key and authorization != f"Bearer {self._hold_key}") or not hold(body):
                return
            self._held += 1
            released = self._released
            self._held_changed.notify_all()
        released.wait()

    @staticmethod
    def _is_check(body: dict[str, Any]) -> bool:
        from agents.llm.preflight import PING_TEXT

        messages = body.get("messages") or []
        return body.get("max_tokens") == 1 and len(messages) == 1 and messages[0].get("content") == PING_TEXT

    @property
    def request_count(self) -> int:
        with self._lock:
            return self._counter

    def _next_fault(self, body: dict[str, Any]) -> Fault | None:
        with self._lock:
            self._counter += 1
            self.requests.append(body)
            return self._faults.popleft() if self._faults else None

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        # Ids derive from the request, so concurrent runs of the same script produce the same conversation.
        serial = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{serial}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                for i, (name, arguments) in enumerate(reply.tool_calls)
            ]
        prompt_tokens = _approx_tokens(body.get("messages", []))
        completion_tokens = _approx_tokens(message)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        extra: dict[str, Any] = {}
        if self.prefix_cache is not None:
            cached = self._cached_prompt_tokens(body, prompt_tokens)
            if self.prefix_cache == "openai":
                usage["prompt_tokens_details"] = {"cached_tokens": cached}
            else:
                extra["timings"] = {"cache_n": cached, "prompt_n": prompt_tokens - cached}
        return {
            "id": f"chatcmpl-{serial}",
            "object": "chat.completion",
            "created": 0,
            "model": self.served_model or body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"),
                }
            ],
            "usage": usage,
            **extra,
        }
