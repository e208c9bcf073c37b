"""Request size limit: bodies above the configured size are refused with 413 before they are parsed."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.asgi_replies import send_json_error


class _TooLarge(Exception):
    pass


async def _refuse(send: Send, status: int, message: str) -> None:
    await send_json_error(send, status, message, "REQUEST_REFUSED")


class BodySizeLimitMiddleware:
    """Refuses bodies larger than `max_bytes`: by Content-Length up front, or while streaming a chunked body."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = f"request body larger than {self.max_bytes} bytes"
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                length = int(declared)
            except ValueError:
                await _refuse(send, 400, "malformed Content-Length header")
                return
            if length > self.max_bytes:
                await _refuse(send, 413, too_large)
                return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _refuse(send, 413, too_large)
