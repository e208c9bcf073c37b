"""A response cache for GraphQL queries that is exact, not approximate: the evidence graph changes only by
appending events, so a query's answer stays valid exactly as long as the log head does not move.

Every cached request first reads the log head (one small query); an entry made at another head is a miss.
Only successful query operations are cached (never mutations, never responses with errors), keyed by query
text, variables, operation name, whether the caller may see gold fields and whether it sent the token.
Responses say `X-Cache: hit|miss`.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from functools import lru_cache
from threading import Lock
from typing import Any

from graphql import GraphQLError, OperationDefinitionNode, parse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import ApiError
from api.schema.context import Auth, check_bearer


class ResponseCache:
    """LRU of response bodies by key, each tagged with the log head seq it was computed at."""

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, tuple[int, bytes]] = OrderedDict()
        self._bytes = 0
        self._lock = Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str, head_seq: int) -> bytes | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != head_seq:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return entry[1]

    def put(self, key: str, head_seq: int, body: bytes) -> None:
        if len(body) > self.max_bytes // 4:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= len(old[1])
            self._entries[key] = (head_seq, body)
            self._bytes += len(body)
            while self._entries and (len(self._entries) > self.max_entries or self._bytes > self.max_bytes):
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= len(dropped)

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"entries": len(self._entries), "bytes": self._bytes, "hits": self.hits, "misses": self.misses}


@lru_cache(maxsize=1024)
def _operation_types(query: str) -> dict[str | None, str]:
    """Operation name -> type of a document (cached by text); empty when the text does not parse."""
    try:
        document = parse(query)
    except GraphQLError:
        return {}
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    found: dict[str | None, str] = {d.name.value if d.name else None: d.operation.value for d in operations}
    if len(operations) == 1:
        found[None] = operations[0].operation.value
    return found


def cache_key(request: dict[str, Any], gold_visible: bool, authenticated: bool = False) -> str | None:
    """The key of a cacheable request (a single query operation), else None. Whether the request carried the
    token is part of the key as well as gold visibility: some fields need the token even when the server reveals
    reference answers (pending adjudications), so a token holder's response is never served to anyone else."""
    query = request.get("query")
    variables = request.get("variables") or {}
    operation = request.get("operationName")
    if (
        not isinstance(query, str)
        or not isinstance(variables, dict)
        or not (operation is None or isinstance(operation, str))
    ):
        return None
    if _operation_types(query).get(operation) != "query":
        return None
    material = json.dumps(
        [query, variables, operation, gold_visible, authenticated], sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(material.encode()).hexdigest()


class ResponseCacheMiddleware:
    """Serves repeated GraphQL queries from the cache while the log head is unchanged (see module docstring)."""

    def __init__(
        self,
        app: ASGIApp,
        cache: ResponseCache,
        head_seq: Callable[[], Awaitable[int]],
        token: str | None,
        reveal_gold: bool,
        path: str = "/graphql",
    ) -> None:
        self.app = app
        self.cache = cache
        self.head_seq = head_seq
        self.token = token
        self.reveal_gold = reveal_gold
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay(b"", receive, message), send)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        key = self._key(scope, body)
        if key is None:
            await self.app(scope, _replay(body, receive), send)
            return
        try:
            head = await self.head_seq()
        except ApiError:
            # The graph is unreachable: no answer can be validated, so let the app report the failure.
            await self.app(scope, _replay(body, receive), send)
            return
        cached = self.cache.get(key, head)
        if cached is not None:
            await _send_json(send, cached, b"hit")
            return
        captured: dict[str, Any] = {"status": 0, "headers": [], "body": []}

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                captured["status"] = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-cache", b"miss")]
            elif message["type"] == "http.response.body":
                captured["body"].append(message.get("body", b""))
            await send(message)

        await self.app(scope, _replay(body, receive), capture)
        response = b"".join(captured["body"])
        if captured["status"] == 200 and b'"errors"' not in response:
            self.cache.put(key, head, response)

    def _key(self, scope: Scope, body: bytes) -> str | None:
        headers = dict(scope.get("headers") or [])
        if b"application/json" not in headers.get(b"content-type", b""):
            return None
        authorization = headers.get(b"authorization")
        auth = check_bearer(authorization.decode("latin-1") if authorization else None, self.token)
        if auth is Auth.BAD_TOKEN:
            return None
        try:
            request = json.loads(body)
        except ValueError:
            return None
        if not isinstance(request, dict):
            return None
        return cache_key(request, self.reveal_gold or auth is Auth.TOKEN, auth is Auth.TOKEN)


def _replay(body: bytes, receive: Receive, first: Message | None = None) -> Receive:
    """A receive callable that yields `body` once (or the already-read non-body message), then defers to the
    client's own channel (so a disconnect is still seen)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return first if first is not None else {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _send_json(send: Send, body: bytes, cache_state: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"x-cache", cache_state),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
