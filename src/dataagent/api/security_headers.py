"""Security headers on every response: a strict Content-Security-Policy and its companions.

Pure ASGI (it only adds headers to `http.response.start`), so streamed answers (SSE) pass
through chunk by chunk, never buffered.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.routing import get_route_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dataagent.api.web import is_under

# The page's own scripts only (no inline script, no eval); MUI writes <style> elements, so
# inline styles are allowed; images from the server, `data:` and `blob:` (charts, CSV
# downloads) but nothing remote: a model's answer cannot make the browser fetch elsewhere.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

HEADERS: tuple[tuple[str, str], ...] = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("X-Frame-Options", "DENY"),
)

# Swagger UI and ReDoc load their scripts from a CDN and run inline script: they keep the
# other headers but not the strict policy.
DOCS_PATHS = ("/docs", "/redoc")


def has_strict_policy(path: str) -> bool:
    """False for the interactive API docs, True for everything else."""
    return not is_under(path, DOCS_PATHS)


class SecurityHeadersMiddleware:
    """Add the security headers to every HTTP response that does not set its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = list(HEADERS)
        if has_strict_policy(get_route_path(scope)):
            headers.append(("Content-Security-Policy", CONTENT_SECURITY_POLICY))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                response_headers = MutableHeaders(scope=message)
                for name, value in headers:
                    response_headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)
