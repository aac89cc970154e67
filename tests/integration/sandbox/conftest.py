"""A real bubblewrap sandbox pool shared by the tests of one module."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from dataagent.sandbox import LocalSandbox, SandboxLimits
from dataagent.sandbox.bwrap import find_bwrap

SECRET_ENV = "DATAAGENT_ESCAPE_TEST_SECRET"
SECRET_VALUE = "s3cr3t-value-that-must-not-leak"


def require_bwrap() -> None:
    """Skip (or fail in CI, where services are required) when bubblewrap is missing."""
    if find_bwrap() is None:
        if os.environ.get("DATAAGENT_REQUIRE_SERVICES") == "1":
            pytest.fail("bubblewrap is required here but not installed")
        pytest.skip("bubblewrap not installed")


def bwrap_children() -> list[int]:
    """Our live child processes that are bubblewrap (each one a sandbox zygote)."""
    children: list[int] = []
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(FileNotFoundError):  # threads come and go (child watchers)
            children += [int(pid) for pid in (task / "children").read_text().split()]
    found = []
    for pid in children:
        try:
            argv0 = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")[0]
            state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            continue
        if os.path.basename(argv0) == b"bwrap" and state not in ("Z", "X"):
            found.append(pid)
    return found


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sandbox() -> AsyncIterator[LocalSandbox]:
    """A warm pool of one zygote with short limits, with a secret in the host environment."""
    require_bwrap()
    os.environ[SECRET_ENV] = SECRET_VALUE
    limits = SandboxLimits(timeout_s=5, memory_mb=256, nproc=32, fsize_mb=20, tmp_mb=40)
    pool = LocalSandbox(pool_size=1, max_concurrency=2, limits=limits)
    try:
        await pool.start()
        yield pool
    finally:
        await pool.aclose()
        os.environ.pop(SECRET_ENV, None)
