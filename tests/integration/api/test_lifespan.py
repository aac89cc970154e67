"""The app's lifespan, driven over the ASGI lifespan protocol as a server drives it.

The sandbox pool starts warming at start-up without holding start-up back, and is closed
at shut-down; without bubblewrap the app still starts and only executions are refused.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from fastapi import FastAPI
from tests.integration.sandbox.conftest import bwrap_children, require_bwrap

from dataagent.api.app import create_app
from dataagent.config import Settings
from dataagent.errors import ErrorCode
from dataagent.sandbox import LocalSandbox
from dataagent.store.migrations import upgrade


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    """The app between lifespan start-up and shut-down (the messages uvicorn sends)."""
    to_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    from_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    task = asyncio.create_task(app(scope, to_app.get, from_app.put))
    await to_app.put({"type": "lifespan.startup"})
    started = await from_app.get()
    assert started["type"] == "lifespan.startup.complete", started
    try:
        yield
    finally:
        await to_app.put({"type": "lifespan.shutdown"})
        stopped = await from_app.get()
        assert stopped["type"] == "lifespan.shutdown.complete", stopped
        await task


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    upgrade(url)
    return Settings(
        data_dir=tmp_path / "data",
        database_url=url,
        secret_key="test-secret-key-that-is-long-enough-for-hs256",
        _env_file=None,  # type: ignore[call-arg]
        **overrides,
    )


async def _until_warm(sandbox: LocalSandbox, count: int, timeout_s: float = 90.0) -> float:
    started = time.monotonic()
    while sandbox.status()["idle"] < count:
        assert time.monotonic() - started < timeout_s, sandbox.status()
        await asyncio.sleep(0.05)
    return time.monotonic() - started


@pytest.mark.sandbox
async def test_the_sandbox_pool_warms_after_start_up_and_closes_at_shut_down(
    tmp_path: Path,
) -> None:
    require_bwrap()
    app = create_app(_settings(tmp_path, sandbox_pool_size=2))
    sandbox = app.state.context.sandbox
    assert isinstance(sandbox, LocalSandbox)
    assert sandbox.status() == {"mode": "bwrap", "idle": 0, "alive": 0}  # nothing before start
    before = set(bwrap_children())
    async with running(app):
        # Start-up did not wait: the zygotes are starting (seconds each), none is ready yet.
        assert sandbox.status() == {"mode": "bwrap", "idle": 0, "alive": 2}
        await _until_warm(sandbox, 2)
        zygotes = set(bwrap_children()) - before
        assert len(zygotes) == 2
        result = await sandbox.execute("print(df.n.sum())", {"df": pd.DataFrame({"n": [1, 2]})})
        assert result.ok and result.stdout == "3\n"
    assert sandbox.status() == {"mode": "bwrap", "idle": 0, "alive": 0}
    assert not zygotes & set(bwrap_children())


@pytest.mark.sandbox
async def test_shut_down_during_warm_up_leaves_no_zygote(tmp_path: Path) -> None:
    require_bwrap()
    app = create_app(_settings(tmp_path, sandbox_pool_size=2))
    before = set(bwrap_children())
    async with running(app):
        assert app.state.context.sandbox.status()["alive"] == 2
    assert app.state.context.sandbox.status() == {"mode": "bwrap", "idle": 0, "alive": 0}
    assert set(bwrap_children()) <= before


async def test_pool_size_zero_starts_no_sandbox_process(tmp_path: Path) -> None:
    app = create_app(_settings(tmp_path, sandbox_pool_size=0))
    before = set(bwrap_children())
    async with running(app):
        await asyncio.sleep(0.5)  # time for a background start to show, were there one
        assert app.state.context.sandbox.status()["alive"] == 0
        assert set(bwrap_children()) <= before


async def test_without_bubblewrap_the_app_starts_and_executions_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no bwrap to be found
    app = create_app(_settings(tmp_path))
    assert app.state.context.sandbox.status() == {"mode": "unavailable", "idle": 0, "alive": 0}
    with caplog.at_level(logging.WARNING, logger="dataagent.sandbox"):
        async with running(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                assert (await client.get("/api/health")).status_code == 200
            result = await app.state.context.sandbox.execute("print(1)")
    assert result.error is not None and result.error.code == ErrorCode.RUNNER_INTERNAL_ERROR
    assert "bubblewrap" in result.error.message
    assert any("bubblewrap" in record.message for record in caplog.records)
