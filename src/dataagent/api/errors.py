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


# Where a parameter comes from: the first part of an error's location, never a field name.
_SOURCES = ("body", "query", "path", "header", "cookie")


def _field(loc: tuple[Any, ...], body: Any, error_type: str) -> str:
    """The field an error is about, named as the client wrote it: the alias path through
    the request (`anthropic`'s `reasoningLevel` is `reasoningLevel`, a list item its index),
    never the validator's own steps (`function-after[...]`, `constrained-str`, a union's
    branch or tag), which a client never wrote."""
    source, rest = (loc[0], loc[1:]) if loc and loc[0] in _SOURCES else ("body", loc)
    if source != "body":
        # A parameter: its name; anything after it is a validator step.
        return str(rest[0]) if rest else source
    parts: list[str] = []
    node = body
    for index, part in enumerate(rest):
        last = index == len(rest) - 1
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            parts.append(part)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            parts.append(str(part))
            node = node[part]
        elif last and error_type == "missing" and isinstance(node, dict) and isinstance(part, str):
            parts.append(part)  # a field the client left out: the name the schema gives it
    return ".".join(parts) or "body"


def _validation_details(exc: RequestValidationError) -> list[dict[str, str]]:
    """One entry per field: what each of a union's branches wanted, in one plain sentence."""
    wanted: dict[str, list[str]] = {}
    nullable: set[str] = set()
    for err in exc.errors():
        field = _field(tuple(err.get("loc", ())), exc.body, str(err.get("type", "")))
        if err.get("type") == "none_required":
            nullable.add(field)  # "or null": the other branches say what a value must be
            continue
        message = _plain(str(err.get("msg", "")))
        messages = wanted.setdefault(field, [])
        if message not in messages:
            messages.append(message)
    for field in nullable - set(wanted):
        wanted[field] = ["Input should be null"]
    return [
        {"field": field, "message": "; or ".join(messages)} for field, messages in wanted.items()
    ]


def _plain(message: str) -> str:
    """pydantic's sentence, minus the Python names some of them carry."""
    message = re.sub(r"^Value error, ", "", message)
    message = message.replace(
        "UUID input should be a string, bytes or UUID object", "Input should be a UUID string"
    )
    return message.replace(
        "a valid dictionary or object to extract fields from", "a JSON object"
    ).replace("a valid dictionary", "a JSON object")


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
