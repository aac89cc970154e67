"""Calling the app as a server does, below any HTTP client: a raw path, a client that stays."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote


def get_scope(raw_path: str) -> dict[str, Any]:
    """The ASGI scope of `GET raw_path` as Uvicorn hands it over (`path` percent-decoded,
    no client-side `..` normalisation)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": unquote(raw_path),
        "raw_path": raw_path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"test")],
        "client": ("127.0.0.1", 1234),
        "server": ("test", 80),
    }


def receive_once() -> Callable[[], Awaitable[dict[str, Any]]]:
    """An ASGI `receive`: an empty request body, then a client that stays connected."""
    requested = False

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client stays until the answer ends
        raise AssertionError("unreachable")

    return receive
