"""Security headers on every response; report pages run sandboxed (scripts allowed, no same-origin access)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

APP_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# Reports are generated HTML that may carry inline styles and scripts: a sandbox gives them an opaque origin,
# so nothing in a report can call the API with the page's origin, and they may not load anything remote.
REPORT_CSP = (
    "sandbox allow-scripts allow-popups allow-downloads allow-top-navigation-by-user-activation; "
    "default-src 'self' 'unsafe-inline' data:; connect-src 'none'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
_COMMON = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, reports_prefix: str = "/reports") -> None:
        self.app = app
        self.reports_prefix = reports_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path") or "")
        csp = REPORT_CSP if path.startswith(self.reports_prefix) else APP_CSP

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in _COMMON if n not in present]
                if b"content-security-policy" not in present:
                    extra.append((b"content-security-policy", csp.encode()))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)
