"""One warm zygote process and the host's side of its framed protocol."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import struct
from collections import deque
from typing import Any

logger = logging.getLogger(__name__)

FRAME = struct.Struct(">Q")
MAX_RESULT_BYTES = 256 * 1024 * 1024
STDERR_TAIL_LINES = 40


class WorkerError(Exception):
    """The zygote could not be started, broke its protocol, or died."""


class WorkerTimeout(WorkerError):
    """The zygote did not answer in time (the host's backstop behind the sandbox's own timer)."""


class Worker:
    """A zygote with the analysis stack imported, serving one job at a time."""

    def __init__(self, process: asyncio.subprocess.Process, ready: dict[str, Any]) -> None:
        self.process = process
        self.ready = ready
        self.isolated = ready.get("isolation_error") is None
        self.scratch: str | None = None
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_task: asyncio.Task[None] | None = None

    @property
    def baseline_vm_kb(self) -> int:
        """The zygote's virtual memory size after preloading."""
        return int(self.ready.get("baseline_vm_kb", 0))

    @property
    def stderr_tail(self) -> str:
        """The last lines the zygote or bubblewrap wrote to stderr (for diagnostics)."""
        return "\n".join(self._stderr_tail)

    @classmethod
    async def start(
        cls,
        command: list[str],
        env: dict[str, str],
        timeout_s: float = 120.0,
        pass_fds: tuple[int, ...] = (),
    ) -> Worker:
        """Start a zygote and wait until it has preloaded the stack."""
        creating = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                *command,
                pass_fds=pass_fds,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                start_new_session=True,
            )
        )
        # Cancelled half-way, process creation kills bubblewrap at once, which was seen to
        # leave its sandboxed child behind holding our pipes (and `kill` waiting forever).
        # So a cancelled start lets the creation finish and then kills the whole sandbox.
        try:
            process = await asyncio.shield(creating)
        except asyncio.CancelledError:
            await _terminate(await creating)
            raise
        tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        stderr_task = asyncio.create_task(_collect_stderr(process, tail))
        try:
            ready = await asyncio.wait_for(_read_frame(process), timeout_s)
        except BaseException as exc:
            await _terminate(process)
            await stderr_task
            if isinstance(exc, Exception):
                detail = "\n".join(tail) or f"{type(exc).__name__}: {exc}"
                raise WorkerError(f"the sandbox did not start: {detail}") from exc
            raise
        worker = cls(process, ready)
        worker._stderr_tail = tail
        worker._stderr_task = stderr_task
        return worker

    async def run(
        self, header: dict[str, Any], blobs: list[bytes], timeout_s: float
    ) -> dict[str, Any]:
        """Send one job and wait for its result (WorkerTimeout past `timeout_s`)."""
        stdin = self.process.stdin
        if stdin is None or self.process.returncode is not None:
            raise WorkerError("the sandbox process is not running")
        body = json.dumps(header).encode()
        try:
            stdin.write(FRAME.pack(len(body)) + body)
            for blob in blobs:
                stdin.write(blob)
            await stdin.drain()
            return await asyncio.wait_for(_read_frame(self.process), timeout_s)
        except TimeoutError as exc:
            raise WorkerTimeout("the sandbox did not answer in time") from exc
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            raise WorkerError(f"the sandbox process failed: {type(exc).__name__}") from exc

    async def close(self) -> None:
        """Ask the zygote to exit (end of input), killing it if it does not."""
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), 5.0)
        await self.kill()

    async def kill(self) -> None:
        """Kill the whole sandbox (its process group; bubblewrap then ends its PID namespace)."""
        await _terminate(self.process)
        if self._stderr_task is not None:
            await self._stderr_task
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)


async def _read_frame(process: asyncio.subprocess.Process) -> dict[str, Any]:
    assert process.stdout is not None
    (size,) = FRAME.unpack(await process.stdout.readexactly(FRAME.size))
    if size > MAX_RESULT_BYTES:
        raise ValueError("result frame too large")
    message: dict[str, Any] = json.loads(await process.stdout.readexactly(size))
    return message


async def _collect_stderr(process: asyncio.subprocess.Process, tail: deque[str]) -> None:
    assert process.stderr is not None
    while line := await process.stderr.readline():
        text = line.decode(errors="replace").rstrip()
        tail.append(text)
        logger.debug("sandbox stderr: %s", text)


async def _terminate(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        # The process leads its own group (start_new_session), so this kills it too. Not
        # also `process.kill()`: it polls first, and reaping the child there takes it from
        # asyncio's child watcher ("Unknown child process pid N").
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        except PermissionError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
    if process.stdin is not None and not process.stdin.is_closing():
        process.stdin.close()
    await process.wait()
