"""The shape of a GraphQL request body, checked before strawberry sees it, so that no malformed body reaches a
resolver or the driver: UTF-8, JSON, an object with a string `query`, an object (or null) for `variables`, no
nesting deeper than MAX_DEPTH and no lone surrogate in any string. A body that fails answers 400 with a GraphQL
style JSON error naming what was wrong (and where, as a dotted path); the middlewares around this one add the
security headers and the request id. NaN and Infinity still pass here: the append validation names the field
that carries one, and an Int variable holding one is a coercion error of the GraphQL layer (BAD_INPUT)."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.asgi_replies import send_json_error

MAX_DEPTH = 64
CODE = "BAD_REQUEST"


class BodyProblem(Exception):
    """What is wrong with a body, in words a client can act on."""


def check_body(raw: bytes) -> None:
    """Raise BodyProblem for a body that is not a well-formed GraphQL request (see the module docstring)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyProblem(f"the request body is not valid UTF-8 (byte {exc.start})") from None
    try:
        body = json.loads(text)
    except RecursionError:
        raise BodyProblem(f"the request body nests deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise BodyProblem(f"the request body is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(body, dict):
        raise BodyProblem(f"the request body must be a JSON object with a `query`, not {_kind(body)}")
    if not isinstance(body.get("query"), str):
        raise BodyProblem(f"`query` must be a string, not {_kind(body.get('query'))}")
    for key in ("variables", "extensions"):
        if body.get(key) is not None and not isinstance(body[key], dict):
            raise BodyProblem(f"`{key}` must be an object or null, not {_kind(body[key])}")
    if body.get("operationName") is not None and not isinstance(body["operationName"], str):
        raise BodyProblem(f"`operationName` must be a string or null, not {_kind(body['operationName'])}")
    _walk(body)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(type(value), "a number")


def _walk(body: dict[str, Any]) -> None:
    """Depth and strings, iteratively (a deep body must not exhaust the stack here either)."""
    stack: list[tuple[Any, str, int]] = [(body, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BodyProblem(f"the request body nests deeper than {MAX_DEPTH} levels (at {path or 'the top'})")
        if isinstance(value, str):
            _require_encodable(value, path)
        elif isinstance(value, dict):
            for key, item in value.items():
                _require_encodable(key, f"{path}.{key}" if path else "a key")
                stack.append((item, f"{path}.{key}" if path else str(key), depth + 1))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value))


def _require_encodable(text: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BodyProblem(
            f"{path or 'the body'}: a lone surrogate (\\u{ord(text[exc.start]):04x}) at character {exc.start} is not "
            "text; send the character itself or a complete surrogate pair"
        ) from None


class GraphQLBodyMiddleware:
    """Checks every JSON POST to `path` with check_body; a good body is replayed to the app unchanged."""

    def __init__(self, app: ASGIApp, path: str = "/graphql") -> None:
        self.app = app
        self.path = path.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        content_type = dict(scope.get("headers") or []).get(b"content-type", b"application/json").lower()
        if not content_type.startswith(b"application/json"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, receive, send)  # the client went away: let the app see it
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        try:
            check_body(raw)
        except BodyProblem as problem:
            await send_json_error(send, 400, str(problem), CODE)
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
