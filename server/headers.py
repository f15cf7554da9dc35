"""HTTP behaviour every route shares, as one ASGI middleware: HEAD wherever GET is,
OPTIONS answering the methods a path allows, and the security headers of every answer.

- `X-Content-Type-Options: nosniff` on every answer (JSON errors echo input);
- on HTML: a Content-Security-Policy (scripts from this host only, no framing, no
  plugins, forms to this host), `X-Frame-Options: DENY`, `Referrer-Policy`.
The graph views carry their own CSP with a per-page nonce in a <meta> tag; a header policy
would intersect with it, so they get only what a <meta> cannot say (frame-ancestors).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["CSP", "SharedHeaders"]

Message = MutableMapping[str, Any]
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
# Swagger UI and ReDoc pages start their bundle (served from here) with an inline script.
_DOCS_CSP = CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'") + \
    "; worker-src blob:"
_VIEW_CSP = "frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
_DOCS = ("/docs", "/redoc")
_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _policy(path: str) -> str:
    if path.startswith("/view/"):
        return _VIEW_CSP
    if path in _DOCS:
        return _DOCS_CSP
    return CSP


class SharedHeaders:
    """The middleware; `routes` is the app's route list (to answer OPTIONS)."""

    def __init__(self, app: ASGIApp, routes: Callable[[], list[Any]]) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        headers = {k.lower(): v for k, v in scope["headers"]}
        if method == "OPTIONS" and b"access-control-request-method" not in headers:
            await self._options(scope, send)
            return
        head = method == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}
        await self.app(scope, receive, self._sender(scope, send, head))

    def allowed(self, scope: Scope) -> list[str]:
        """The methods some route at this path answers (HEAD with GET), or []."""
        methods: set[str] = set()
        for method in _METHODS:
            probe = {**scope, "method": method}
            for route in self.routes():
                match, _ = route.matches(probe)
                if match is Match.FULL and (method == "GET" or not isinstance(route, Mount)):
                    methods.add(method)
                    break
        if "GET" in methods:
            methods.add("HEAD")
        return sorted(methods | {"OPTIONS"}) if methods else []

    async def _options(self, scope: Scope, send: Send) -> None:
        allow = self.allowed(scope)
        status = 204 if allow else 404
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"allow", ", ".join(allow).encode()), (b"content-length", b"0"),
            (b"x-content-type-options", b"nosniff")]})
        await send({"type": "http.response.body", "body": b""})

    def _sender(self, scope: Scope, send: Send, head: bool) -> Callable[[Message],
                                                                        Awaitable[None]]:
        async def sender(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = _secured(list(message.get("headers", [])), scope["path"])
                if message["status"] == 405:  # every method of the path, not one route's
                    allow = ", ".join(self.allowed(scope)).encode()
                    headers = [(k, v) for k, v in headers if k.lower() != b"allow"]
                    headers.append((b"allow", allow))
                message["headers"] = headers
            elif head and message["type"] == "http.response.body":
                if message.get("more_body"):
                    return  # HEAD: the headers of GET, no body
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        return sender


def _secured(headers: list[tuple[bytes, bytes]], path: str) -> list[tuple[bytes, bytes]]:
    names = {k.lower() for k, _ in headers}
    extra = [] if b"x-content-type-options" in names else [(b"x-content-type-options",
                                                            b"nosniff")]
    ctype = next((v for k, v in headers if k.lower() == b"content-type"), b"")
    if ctype.startswith(b"text/html"):
        if b"content-security-policy" not in names:
            extra.append((b"content-security-policy", _policy(path).encode()))
        extra += [(b"x-frame-options", b"DENY"), (b"referrer-policy", b"same-origin")]
    return headers + extra
