"""Fair shares of the real sandbox: one person's burst does not hold everybody else up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import pytest_asyncio
from tests.integration.sandbox.conftest import require_bwrap

from dataagent.api.sandbox_service import create_app
from dataagent.config import Settings
from dataagent.sandbox import LocalSandbox, RemoteSandbox, SandboxLimits
from dataagent.sandbox.worker import Worker

pytestmark = [pytest.mark.sandbox, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(loop_scope="module")
async def fair_pool() -> AsyncIterator[LocalSandbox]:
    """The default shape: two warm zygotes, two at once, one per person."""
    require_bwrap()
    settings = Settings(sandbox_pool_size=2, sandbox_max_concurrency=2, sandbox_max_per_user=1)
    pool = LocalSandbox.from_settings(settings, limits=SandboxLimits(timeout_s=20))
    try:
        await pool.start()
        yield pool
    finally:
        await pool.aclose()


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The code of each job, in the order the jobs reached a zygote."""
    started: list[str] = []
    run = Worker.run

    async def recording_run(worker: Worker, header: dict[str, Any], *args: Any) -> Any:
        started.append(header["code"])
        return await run(worker, header, *args)

    monkeypatch.setattr(Worker, "run", recording_run)
    return started


async def _until(condition: Any, timeout_s: float = 60.0) -> None:
    for _ in range(int(timeout_s / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met in time")


async def test_another_person_goes_past_a_burst(
    fair_pool: LocalSandbox, starts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned: list[None] = []
    spawn = fair_pool._spawn

    async def counting_spawn() -> Worker:
        spawned.append(None)
        return await spawn()

    monkeypatch.setattr(fair_pool, "_spawn", counting_spawn)
    slots = fair_pool.slots
    burst = [
        asyncio.create_task(fair_pool.execute(f"import time\ntime.sleep(10)  # a{n}", owner="a"))
        for n in range(8)
    ]
    await _until(lambda: len(starts) == 1 and slots.waiting("a") == 7)
    quick = await fair_pool.execute("print('b was quick')", owner="b")
    assert quick.ok and quick.stdout == "b was quick\n"
    # b started second, while a's first was still running and its other seven waited.
    assert starts == ["import time\ntime.sleep(10)  # a0", "print('b was quick')"]
    assert slots.running("a") == 1 and slots.waiting("a") == 7
    assert spawned == []  # b found a warm interpreter: no cold start
    # a's queued runs are cancelled (the model turn ended): their places are freed at once.
    for task in burst[1:]:
        task.cancel()
    await asyncio.gather(*burst[1:], return_exceptions=True)
    assert slots.waiting() == 0 and slots.running("a") == 1
    burst[0].cancel()  # and the running one: its zygote is discarded, a new one warms up
    await asyncio.gather(burst[0], return_exceptions=True)
    assert slots.running() == 0
    assert len(starts) == 2  # none of the cancelled runs ever reached a zygote
    await _until(lambda: fair_pool.status()["idle"] == 2)


async def test_one_persons_runs_go_one_at_a_time(
    fair_pool: LocalSandbox, starts: list[str]
) -> None:
    code = "import time\ntime.sleep(0.3)\nprint('{n}')"
    results = await asyncio.gather(
        *(fair_pool.execute(code.format(n=n), owner="a") for n in range(3)),
        fair_pool.execute("print('b')", owner="b"),
    )
    assert [result.stdout for result in results] == ["0\n", "1\n", "2\n", "b\n"]
    # a's second started only after its first finished: b's run is the only one that
    # could start alongside a's first, and it did.
    assert starts.index(code.format(n=1)) > starts.index("print('b')")
    assert fair_pool.slots.running() == 0


async def test_executions_without_an_owner_share_one_anonymous_share(
    fair_pool: LocalSandbox, starts: list[str]
) -> None:
    slow = asyncio.create_task(fair_pool.execute("import time\ntime.sleep(10)  # anon 1"))
    await _until(lambda: len(starts) == 1)
    second = asyncio.create_task(fair_pool.execute("print('anon 2')"))
    await _until(lambda: fair_pool.slots.waiting() == 1)
    assert len(starts) == 1  # waits for the first: the anonymous owner is at its limit
    named = await fair_pool.execute("print('named')", owner="c")
    assert named.stdout == "named\n" and not second.done()
    slow.cancel()
    await asyncio.gather(slow, return_exceptions=True)
    assert (await second).stdout == "anon 2\n"
    await _until(lambda: fair_pool.status()["idle"] == 2)


async def test_remote_sandbox_passes_the_owner_through(
    fair_pool: LocalSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    owners: list[str | None] = []
    execute = fair_pool.execute

    async def recording_execute(*args: Any, owner: str | None = None, **kwargs: Any) -> Any:
        owners.append(owner)
        return await execute(*args, owner=owner, **kwargs)

    monkeypatch.setattr(fair_pool, "execute", recording_execute)
    transport = httpx.ASGITransport(app=create_app(Settings(), sandbox=fair_pool))
    remote = RemoteSandbox("http://sandbox", transport=transport)
    try:
        assert (await remote.execute("print(1)", owner="person-1")).stdout == "1\n"
        assert (await remote.execute("print(2)")).stdout == "2\n"
    finally:
        await remote.aclose()
    assert owners == ["person-1", None]


async def test_remote_sandbox_sends_the_owner_on_the_wire() -> None:
    bodies: list[bytes] = []

    def service(request: httpx.Request) -> httpx.Response:
        bodies.append(request.content)
        wire = {"stdout": "", "stderr": "", "returnCode": 0, "files": [], "executionTimeMs": 1}
        return httpx.Response(200, json=wire)

    remote = RemoteSandbox("http://sandbox", transport=httpx.MockTransport(service))
    try:
        await remote.execute("print(1)", owner="1f0c")
        await remote.execute("print(1)")
    finally:
        await remote.aclose()
    assert b'"owner":"1f0c"' in bodies[0].replace(b" ", b"") and b"owner" not in bodies[1]
