"""The local sandbox: a warm pool of bubblewrap zygotes, and fair slots to run in."""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import pandas as pd

from dataagent.config import Settings
from dataagent.errors import ErrorCode
from dataagent.sandbox.bwrap import (
    PythonLayout,
    bwrap_command,
    find_bwrap,
    runner_sources,
    unsafe_command,
    zygote_options,
)
from dataagent.sandbox.outcome import internal_error, result_from_report
from dataagent.sandbox.result import ExecutionError, ExecutionResult, SandboxLimits
from dataagent.sandbox.slots import FairSlots
from dataagent.sandbox.tables import encode_tables
from dataagent.sandbox.worker import Worker, WorkerError, WorkerTimeout

logger = logging.getLogger(__name__)

BACKSTOP_GRACE_S = 15.0
NO_BWRAP_MESSAGE = (
    "The Python sandbox is unavailable: bubblewrap (bwrap) is not installed. Install it "
    "(apt-get install bubblewrap) or set DATAAGENT_SANDBOX_ALLOW_UNSAFE=true to run code "
    "without isolation."
)
NO_FILTER_MESSAGE = (
    "The Python sandbox cannot filter system calls, so it runs no code: {detail}. Install "
    "libseccomp (apt-get install libseccomp2)."
)
ANONYMOUS_OWNER = ""  # executions without an owner share one fair share


class LocalSandbox:
    """Runs code in warm, isolated interpreters on this machine (see docs/sandbox.md)."""

    def __init__(
        self,
        *,
        pool_size: int = 2,
        max_concurrency: int = 2,
        max_per_owner: int = 1,
        limits: SandboxLimits | None = None,
        allow_unsafe: bool = False,
        bwrap: str | None = None,
        start_timeout_s: float = 120.0,
    ) -> None:
        self.pool_size = pool_size
        self.max_concurrency = max_concurrency
        self.limits = limits or SandboxLimits()
        self.bwrap = bwrap if bwrap is not None else find_bwrap()
        self.unsafe = self.bwrap is None and allow_unsafe
        self.start_timeout_s = start_timeout_s
        self._layout = PythonLayout.current()
        self._runner_sources = runner_sources()
        self._options = zygote_options(self.limits.tmp_mb, self.limits.shm_mb)
        self.slots = FairSlots(max_concurrency, max_per_owner)
        self._idle: list[Worker] = []
        self._alive = 0
        self._spares: set[asyncio.Task[bool]] = set()
        self._closed = False
        self._warned_isolation = False

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> LocalSandbox:
        """A pool sized and limited by the settings."""
        options: dict[str, Any] = {
            "pool_size": settings.sandbox_pool_size,
            "max_concurrency": settings.sandbox_max_concurrency,
            "max_per_owner": settings.sandbox_max_per_user,
            "limits": SandboxLimits.from_settings(settings),
            "allow_unsafe": settings.sandbox_allow_unsafe,
        }
        options.update(overrides)
        return cls(**options)

    @property
    def available(self) -> bool:
        """True when executions can run (bubblewrap found, or unsafe mode allowed)."""
        return self.bwrap is not None or self.unsafe

    @property
    def mode(self) -> str:
        """'bwrap', 'unsafe' or 'unavailable'."""
        return "bwrap" if self.bwrap else ("unsafe" if self.unsafe else "unavailable")

    def status(self) -> dict[str, Any]:
        """Mode and pool counters, for health checks."""
        return {"mode": self.mode, "idle": len(self._idle), "alive": self._alive}

    async def start(self) -> None:
        """Warm the whole pool and wait for it (`warm_up` does the same in the background)."""
        if not self.available:
            return
        while not self._closed and self._alive < self.pool_size:
            self._alive += 1
            try:
                worker = await self._spawn()
            except BaseException:
                self._alive -= 1
                raise
            self._idle.append(worker)

    def warm_up(self) -> None:
        """Start the missing warm zygotes in the background and return at once.

        The app calls this at start-up: a zygote takes seconds to import the analysis stack,
        and start-up should not wait for it. Without bubblewrap it only logs why executions
        will be refused.
        """
        if not self.available:
            logger.warning(NO_BWRAP_MESSAGE)
            return
        if self._closed or self._alive >= self.pool_size:
            return
        started = time.monotonic()
        pending = {self._start_spare() for _ in range(self.pool_size - self._alive)}
        ready: list[bool] = []

        def finished(task: asyncio.Task[bool]) -> None:
            pending.discard(task)
            ready.append(not task.cancelled() and task.exception() is None and task.result())
            if not pending and any(ready) and not self._closed:
                elapsed = time.monotonic() - started
                count = sum(ready)
                logger.info(
                    "Python sandbox ready (%s): %d warm interpreter%s in %.1fs",
                    self.mode,
                    count,
                    "" if count == 1 else "s",
                    elapsed,
                )

        for task in pending:
            task.add_done_callback(finished)

    async def execute(
        self,
        code: str,
        data: Mapping[str, pd.DataFrame] | None = None,
        timeout_s: float | None = None,
        owner: str | None = None,
    ) -> ExecutionResult:
        """Run code with the named tables as DataFrames; failures come back in the result.

        At most `max_concurrency` executions run at once, and at most `max_per_owner` of
        one owner's; the rest wait in line (see `FairSlots`).
        """
        if self._closed:
            raise RuntimeError("the sandbox pool is closed")
        if not self.available:
            return ExecutionResult(
                return_code=-1,
                error=ExecutionError(
                    code=ErrorCode.RUNNER_INTERNAL_ERROR, message=NO_BWRAP_MESSAGE
                ),
            )
        if self.unsafe:
            logger.warning("Running model-written code WITHOUT a sandbox (sandbox_allow_unsafe).")
        tables = encode_tables(data)
        limits = self.limits.for_run(timeout_s)
        async with self.slots.slot(owner or ANONYMOUS_OWNER):
            started = time.monotonic()
            try:
                worker = await self._checkout()
            except WorkerError as exc:
                logger.error("sandbox start failed: %s", exc)
                return internal_error(str(exc))
            header = {
                "code": code,
                "timeout_s": limits["timeout_s"],
                "limits": limits,
                "baseline_vm_kb": worker.baseline_vm_kb,
                "tables": [{"name": name, "nbytes": len(blob)} for name, blob in tables],
            }
            backstop = limits["timeout_s"] + BACKSTOP_GRACE_S
            try:
                report = await worker.run(header, [blob for _, blob in tables], backstop)
            except WorkerTimeout:
                await self._discard(worker)
                elapsed = int((time.monotonic() - started) * 1000)
                message = f"Execution timed out after {limits['timeout_s']:g}s."
                error = ExecutionError(code=ErrorCode.RUNNER_TIMEOUT, message=message)
                return ExecutionResult(return_code=-1, execution_time_ms=elapsed, error=error)
            except WorkerError as exc:
                logger.error("sandbox worker failed: %s\n%s", exc, worker.stderr_tail)
                await self._discard(worker)
                return internal_error("The sandbox process failed.")
            except BaseException:
                await self._discard(worker)
                raise
            await self._checkin(worker)
            return result_from_report(report, limits)

    async def aclose(self) -> None:
        """Stop every zygote and background start; the pool cannot be used afterwards."""
        self._closed = True
        spares = list(self._spares)
        for task in spares:
            task.cancel()
        await asyncio.gather(*spares, return_exceptions=True)  # failures are logged already
        workers, self._idle = self._idle, []
        await asyncio.gather(*(worker.close() for worker in workers))
        self._alive -= len(workers)

    async def __aenter__(self) -> LocalSandbox:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # --- the pool ----------------------------------------------------------------------

    async def _spawn(self) -> Worker:
        if self.unsafe:
            scratch = tempfile.mkdtemp(prefix="dataagent-sandbox-")
            command, env = unsafe_command(self._layout, scratch, self._options)
            worker = await Worker.start(command, env, self.start_timeout_s)
            worker.scratch = scratch
            return worker
        assert self.bwrap is not None
        fds = [_memfd(content) for content, _ in self._runner_sources]
        try:
            command = bwrap_command(self.bwrap, self._layout, fds, self._options)
            env = {"PATH": "/usr/bin:/bin"}  # bubblewrap itself gets nothing from our environment
            worker = await Worker.start(command, env, self.start_timeout_s, tuple(fds))
        finally:
            for fd in fds:
                os.close(fd)
        if worker.ready.get("filter_error") is not None and not self.unsafe:
            await worker.kill()  # fail closed: no run without the system-call filter
            raise WorkerError(NO_FILTER_MESSAGE.format(detail=worker.ready["filter_error"]))
        if not worker.isolated and not self._warned_isolation:
            self._warned_isolation = True
            logger.warning(
                "Nested namespaces are unavailable (%s): each sandbox is used once.",
                worker.ready.get("isolation_error"),
            )
        return worker

    async def _checkout(self) -> Worker:
        """An idle warm worker, or a new one (the slots bound how many run at once)."""
        while self._idle:
            worker = self._idle.pop()
            if worker.usable:
                return worker
            if worker.process.returncode is None:
                logger.error("a sandbox wrote to its protocol while idle: discarded")
            self._alive -= 1
            await worker.kill()
        self._alive += 1
        try:
            return await self._spawn()
        except BaseException:
            self._alive -= 1
            raise

    async def _checkin(self, worker: Worker) -> None:
        reusable = (worker.isolated or self.unsafe) and worker.usable
        if self._closed or not reusable or len(self._idle) >= self.pool_size:
            await self._discard(worker)
        else:
            self._idle.append(worker)

    async def _discard(self, worker: Worker) -> None:
        self._alive -= 1
        await worker.kill()
        if not self._closed and self._alive < self.pool_size:
            self._start_spare()

    def _start_spare(self) -> asyncio.Task[bool]:
        """Start a zygote in the background; it counts as alive from now until it fails."""
        self._alive += 1
        task = asyncio.create_task(self._spare())
        self._spares.add(task)
        task.add_done_callback(self._spare_done)
        return task

    def _spare_done(self, task: asyncio.Task[bool]) -> None:
        # A callback, not an `except` in `_spare`: a task cancelled before it ran never
        # enters its body, and must stop counting all the same.
        self._spares.discard(task)
        if task.cancelled():
            self._alive -= 1
        elif (exc := task.exception()) is not None:
            self._alive -= 1
            logger.error("a sandbox failed to start", exc_info=exc)
        elif not task.result():
            self._alive -= 1

    async def _spare(self) -> bool:
        """Start one zygote and put it in the pool; False when it failed or came too late."""
        try:
            worker = await self._spawn()
        except WorkerError as exc:
            logger.error("a sandbox failed to start: %s", exc)
            return False
        if self._closed:
            await worker.close()
            return False
        self._idle.append(worker)
        return True


def _memfd(content: bytes) -> int:
    """An in-memory file holding `content`, positioned at its start."""
    fd = os.memfd_create("dataagent-sandbox", os.MFD_CLOEXEC)
    view = memoryview(content)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
