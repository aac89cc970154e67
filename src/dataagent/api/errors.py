"""Map every failure to DESIGN's error codes: bad input is a 4xx with a sentence, never a 500."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dataagent.errors import DataAgentError, ErrorCode

log = logging.getLogger(__name__)

_STATUS_CODES = {
    400: ErrorCode.VALIDATION_ERROR,
    401: ErrorCode.UNAUTHORIZED,
    403: ErrorCode.FORBIDDEN,
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
    409: ErrorCode.CONFLICT,
    413: ErrorCode.PAYLOAD_TOO_LARGE,
    415: ErrorCode.VALIDATION_ERROR,
}


def error_response(
    code: ErrorCode,
    message: str,
    status: int,
    details: Any = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """A JSON error response in the one shape every error uses."""
    body = DataAgentError(code, message, details).to_body()
    return JSONResponse(body, status_code=status, headers=headers)


def _location(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path")]
    return ".".join(parts) or str(loc[0] if loc else "request")


def _validation_details(exc: RequestValidationError) -> list[dict[str, str]]:
    return [
        {"field": _location(tuple(err.get("loc", ()))), "message": str(err.get("msg", ""))}
        for err in exc.errors()
    ]


async def _on_data_agent_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DataAgentError)
    if exc.status >= 500:
        log.error("request failed: %s: %s", exc.code, exc.message)
    headers = None
    if exc.retry_after_s is not None:
        headers = {"Retry-After": str(max(1, exc.retry_after_s))}
    return error_response(exc.code, exc.message, exc.status, exc.details, headers)


async def _on_validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    details = _validation_details(exc)
    first = details[0] if details else {"field": "request", "message": "invalid"}
    message = f"Invalid request: {first['field']}: {first['message']}."
    return error_response(ErrorCode.VALIDATION_ERROR, message, 400, details)


async def _on_http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _STATUS_CODES.get(exc.status_code, ErrorCode.VALIDATION_ERROR)
    message = exc.detail if isinstance(exc.detail, str) else "Request failed."
    headers = dict(exc.headers or {})
    if exc.status_code == 404:
        message = "Not found."
    if exc.status_code == 405:
        # Paths outside the OpenAPI document (`/`, `/docs`) keep Starlette's own answer.
        methods = _allowed_methods(request)
        if methods:
            headers["Allow"] = ", ".join(methods)
        allowed = headers.get("Allow") or headers.get("allow")
        message = f"{request.method} is not allowed here" + (
            f"; this path takes {allowed}." if allowed else "."
        )
    # Keep the headers HTTP requires with some statuses (e.g. `Allow` with a 405).
    return error_response(code, message, exc.status_code, headers=headers or None)


def _allowed_methods(request: Request) -> list[str]:
    """Every method the OpenAPI document gives this path (Starlette names only one route's)."""
    methods: set[str] = set()
    for template, operations in request.app.openapi().get("paths", {}).items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, request.url.path):
            methods |= {method.upper() for method in operations}
    return sorted(methods)


async def _on_unexpected(_request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error", exc_info=exc)
    return error_response(ErrorCode.INTERNAL_ERROR, "Something went wrong on our side.", 500)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn exceptions into error bodies."""
    app.add_exception_handler(DataAgentError, _on_data_agent_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(Exception, _on_unexpected)


class BodyLimitMiddleware:
    """Refuse request bodies over the limit with 413, before any route reads them."""

    def __init__(self, app: ASGIApp, max_json_bytes: int, max_upload_bytes: int) -> None:
        self.app = app
        self.max_json_bytes = max_json_bytes
        self.max_upload_bytes = max_upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
        is_upload = headers.get("content-type", "").startswith("multipart/form-data")
        limit = self.max_upload_bytes if is_upload else self.max_json_bytes
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await self._too_large(scope, receive, send, limit)
            return

        # Read the body up front (it is bounded by the limit) so an oversized chunked body
        # is refused here rather than half-way through a route.
        chunks: list[bytes] = []
        received = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            received += len(chunk)
            if received > limit:
                await self._too_large(scope, receive, send, limit)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def _too_large(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = error_response(
            ErrorCode.PAYLOAD_TOO_LARGE, f"The request body is over the {limit:,}-byte limit.", 413
        )
        await response(scope, receive, send)
