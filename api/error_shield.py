"""The last line of defence: an exception no handler caught still answers a JSON 500 (never a traceback, never a
bare text page) inside the security-header and request-id middlewares, so even that reply carries both. The
exception itself goes to the server log with the request id."""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.asgi_replies import send_json_error

log = logging.getLogger("colabench.api")


class ErrorShieldMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception:
            request_id = str((scope.get("state") or {}).get("request_id", "-"))
            log.exception("unhandled error", extra={"request_id": request_id, "path": scope.get("path")})
            if started:
                raise  # the reply is under way: nothing sound can be sent any more
            await send_json_error(
                send,
                500,
                f"internal error (request {request_id}); the server log has the details",
                "INTERNAL_SERVER_ERROR",
            )
