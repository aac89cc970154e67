"""Security headers on every response; the strict CSP everywhere but the interactive docs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from tests.integration.api.conftest import World
from tests.integration.api.raw_asgi import get_scope, receive_once

from dataagent.api.app import create_app
from dataagent.api.security_headers import CONTENT_SECURITY_POLICY
from dataagent.config import Settings

EXPECTED_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
COMPANIONS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
}


def _assert_strict(response: httpx.Response) -> None:
    assert response.headers["content-security-policy"] == EXPECTED_CSP, response.url
    for name, value in COMPANIONS.items():
        assert response.headers[name] == value, (response.url, name)


def test_the_policy_is_the_contracts() -> None:
    assert CONTENT_SECURITY_POLICY == EXPECTED_CSP


async def test_every_kind_of_response_carries_the_headers(world: World) -> None:
    responses = [
        await world.anon.get("/"),  # the page (here: not built)
        await world.anon.get("/api/health"),
        await world.anon.get("/healthz"),
        await world.anon.get("/openapi.json"),
        await world.anon.get("/api/data-agent/chats"),  # 401
        await world.viewer.client.post("/api/data-agent/chats", json={}),  # 403 or 400
        await world.contributor.client.get("/api/nope"),  # 404
        await world.contributor.client.put("/api/data-agent/chats"),  # 405
        await world.contributor.client.get("/api/data-agent/chats"),  # 200
        await world.anon.post(
            "/api/auth/login", content=b"x" * 70_000, headers={"content-type": "application/json"}
        ),  # 413, refused by the body limit before any route
    ]
    assert {r.status_code for r in responses} >= {200, 401, 404, 405, 413}
    for response in responses:
        _assert_strict(response)


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/docs/oauth2-redirect"])
async def test_the_interactive_docs_keep_all_but_the_strict_policy(world: World, path: str) -> None:
    # Swagger UI and ReDoc load scripts from a CDN and run inline script.
    response = await world.anon.get(path)
    assert response.status_code == 200
    assert "content-security-policy" not in response.headers
    for name, value in COMPANIONS.items():
        assert response.headers[name] == value


async def test_a_route_that_sets_its_own_policy_keeps_it(world: World) -> None:
    async def framed() -> StreamingResponse:
        return StreamingResponse(
            iter([b"ok"]), headers={"Content-Security-Policy": "default-src 'none'"}
        )

    world.app.add_api_route("/api/test-own-policy", framed, include_in_schema=False)
    response = await world.anon.get("/api/test-own-policy")
    assert response.headers["content-security-policy"] == "default-src 'none'"
    assert response.headers["x-frame-options"] == "DENY"


@pytest.fixture
async def bare_app(tmp_path: Path) -> AsyncIterator[FastAPI]:
    """An app whose database is never opened (the routes added here need none)."""
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=f"sqlite:///{tmp_path / 'app.db'}",
        secret_key="test-secret-key-that-is-long-enough-for-hs256",
        web_dir=tmp_path / "dist",
        _env_file=None,  # type: ignore[call-arg]
    )
    app = create_app(settings)
    try:
        yield app
    finally:
        await app.state.context.aclose()


async def test_an_unexpected_error_still_carries_the_headers(bare_app: FastAPI) -> None:
    async def boom() -> None:
        raise RuntimeError("a bug")

    bare_app.add_api_route("/api/test-boom", boom, include_in_schema=False)
    transport = httpx.ASGITransport(app=bare_app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/api/test-boom")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "INTERNAL_ERROR"
    _assert_strict(response)


async def test_streamed_responses_are_not_buffered(bare_app: FastAPI) -> None:
    """The first chunk of a stream reaches the client while the route still holds the rest
    (as SSE needs), through every middleware of the app."""
    release = asyncio.Event()

    async def chunks() -> AsyncIterator[bytes]:
        yield b"data: first\n\n"
        await release.wait()
        yield b"data: second\n\n"

    async def stream() -> StreamingResponse:
        return StreamingResponse(chunks(), media_type="text/event-stream")

    bare_app.add_api_route("/api/test-stream", stream, include_in_schema=False)
    sent: list[dict[str, Any]] = []
    first_chunk = asyncio.Event()

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message.get("body") == b"data: first\n\n":
            first_chunk.set()

    task = asyncio.create_task(bare_app(get_scope("/api/test-stream"), receive_once(), send))
    await asyncio.wait_for(first_chunk.wait(), timeout=10)
    assert not task.done()  # the route still holds the second chunk
    start = sent[0]
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    assert headers["content-security-policy"] == EXPECTED_CSP
    assert headers["content-type"].startswith("text/event-stream")
    release.set()
    await asyncio.wait_for(task, timeout=10)
    assert b"".join(m.get("body", b"") for m in sent[1:]) == b"data: first\n\ndata: second\n\n"
