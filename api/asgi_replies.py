"""The one JSON error reply the ASGI middlewares send before (or instead of) the app: GraphQL-shaped
`{"errors": [{"message", "extensions": {"code"}}]}`, so every refusal reads the same to a client."""

from __future__ import annotations

import json

from starlette.types import Send


async def send_json_error(send: Send, status: int, message: str, code: str) -> None:
    body = json.dumps({"errors": [{"message": message, "extensions": {"code": code}}]}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
