"""The MCP server under the SDK's own client: over streamable HTTP (the API's app served on a
real socket in this event loop, its lifespan running) and over stdio (`python -m dataagent
mcp` as a child process on the same app database)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult
from tests.e2e.servers import SOURCE
from tests.integration.api.conftest import (  # noqa: F401 - fixtures used by these tests
    Account,
    World,
    database_url,
    settings,
    world,
)
from tests.integration.runs.conftest import serve

from dataagent.auth.tokens import issue_token
from dataagent.config import Settings


@pytest.fixture
async def mcp_url(world: World) -> AsyncIterator[str]:  # noqa: F811
    """The URL of `/mcp` on the world's app, served with its lifespan (which runs the MCP
    transport)."""
    url: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()

    async def serving() -> None:
        # One task enters and leaves the lifespan: its task groups must end where they began.
        async with world.app.router.lifespan_context(world.app):
            async for served in serve(world.app):
                url.set_result(f"{served}/mcp")
                await stop.wait()

    task = asyncio.create_task(serving())
    try:
        yield await asyncio.wait_for(asyncio.shield(url), timeout=60)
    finally:
        stop.set()
        await task


def token_of(account: Account) -> str:
    """The account's login token (its client's bearer token)."""
    return account.client.headers["authorization"].removeprefix("Bearer ")


def expired_token(world: World, account: Account) -> str:  # noqa: F811
    """A token of the account that expired a minute ago."""
    token, _ = issue_token(account.id, 0, world.context.secret_key, -1)
    return token


@asynccontextmanager
async def http_client(url: str, token: str | None) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, connected, sending this bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def stdio_parameters(settings: Settings, home: Path, env: dict[str, str]) -> StdioServerParameters:  # noqa: F811
    """`python -m dataagent mcp` on the test's app database, with `env` added."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "dataagent", "mcp"],
        cwd=str(home),
        env={
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": SOURCE,
            "HOME": str(home),
            "DATAAGENT_DATA_DIR": str(settings.data_dir),
            "DATAAGENT_DATABASE_URL": settings.resolved_database_url,
            "DATAAGENT_SECRET_KEY": settings.resolved_secret_key(),
            "DATAAGENT_FILE_ROOTS": str(home),
            "DATAAGENT_SANDBOX_POOL_SIZE": "0",
            "DATAAGENT_LOG_LEVEL": "WARNING",
            **env,
        },
    )


def stdio_client(settings: Settings, home: Path, token: str) -> Client:  # noqa: F811
    """The SDK's client over stdio, the server acting as the token's user."""
    return Client(stdio_parameters(settings, home, {"DATAAGENT_TOKEN": token}))


def data_of(result: CallToolResult) -> dict[str, Any]:
    """A successful tool result's data (its JSON text and its structured content agree)."""
    assert not result.is_error, result.content
    text = result.content[0].text  # type: ignore[union-attr]
    data: dict[str, Any] = json.loads(text)
    assert result.structured_content == data
    return data


def error_of(result: CallToolResult) -> str:
    """A tool error's text."""
    assert result.is_error, result
    text: str = result.content[0].text  # type: ignore[union-attr]
    return text
